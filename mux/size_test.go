package mux

import (
	"errors"
	"fmt"
	"io"
	"log"
	"slices"
	"testing"
	"time"
)

// fakePTY records the sizes the size rules apply.
type fakePTY struct {
	resized [][2]int
	fail    bool
}

func (p *fakePTY) Resize(cols, rows int) error {
	if p.fail {
		return errors.New("resize refused")
	}
	p.resized = append(p.resized, [2]int{cols, rows})
	return nil
}

// sizeSession is a session of cols x rows with no PTY: its size rules
// resize pty, and its model's feeder never runs (the timer never fires), so
// the resizes pushed to the model stay in pending.
func sizeSession(cols, rows int, pty *fakePTY) *session {
	ss := &session{
		srv:     &server{log: log.New(io.Discard, "", 0)},
		clients: map[int]*client{}, cols: cols, rows: rows, ptySize: pty,
	}
	ss.setName("size")
	ss.model = newModel(cols, rows, 10, &ss.mu, func([]byte) {})
	ss.model.clock.afterFunc = func(time.Duration, func()) feedTimer { return &fakeTimer{armed: true} }
	return ss
}

// sizeStep is one thing a client does: attach, resize (to cols x rows),
// act (a keystroke), or detach.
type sizeStep struct {
	do         string
	id         int
	cols, rows int
}

func attachStep(id int) sizeStep             { return sizeStep{do: "attach", id: id} }
func resizeStep(id, cols, rows int) sizeStep { return sizeStep{"resize", id, cols, rows} }
func actStep(id int) sizeStep                { return sizeStep{do: "act", id: id} }
func detachStep(id int) sizeStep             { return sizeStep{do: "detach", id: id} }

// clientSpec is a client's terminal when it attaches.
type clientSpec struct {
	cols, rows int
	readOnly   bool
}

// run applies the step the way attach, resize, input and detach do, with
// the session's mu held.
func (st sizeStep) run(ss *session, all map[int]*client) {
	c := all[st.id]
	ss.mu.Lock()
	defer ss.mu.Unlock()
	switch st.do {
	case "attach":
		ss.clients[c.id] = c
		ss.order = append(ss.order, c)
		ss.sizeAttachLocked(c)
	case "resize":
		ss.sizeResizeLocked(c, st.cols, st.rows)
	case "act":
		ss.sizeActLocked(c)
	case "detach":
		delete(ss.clients, c.id)
		ss.order = slices.DeleteFunc(ss.order, func(o *client) bool { return o == c })
		ss.sizeDetachLocked(c)
	}
}

// The size rules of design section 5, one case per rule and its edges:
// who owns the size after the steps, the session's size, and every size
// applied to the PTY (each also pushed to the model, in order).
func TestSizeRules(t *testing.T) {
	for _, tc := range []struct {
		name    string
		clients map[int]clientSpec
		steps   []sizeStep
		owner   int // 0: nobody
		size    [2]int
		resized [][2]int
	}{
		{
			name:    "the first client to attach owns the size",
			clients: map[int]clientSpec{1: {100, 30, false}},
			steps:   []sizeStep{attachStep(1)},
			owner:   1, size: [2]int{100, 30}, resized: [][2]int{{100, 30}},
		},
		{
			name:    "owning at the PTY's own size resizes nothing",
			clients: map[int]clientSpec{1: {80, 24, false}},
			steps:   []sizeStep{attachStep(1)},
			owner:   1, size: [2]int{80, 24},
		},
		{
			name:    "attaching does not take an owned size",
			clients: map[int]clientSpec{1: {100, 30, false}, 2: {120, 40, false}},
			steps:   []sizeStep{attachStep(1), attachStep(2)},
			owner:   1, size: [2]int{100, 30}, resized: [][2]int{{100, 30}},
		},
		{
			name:    "a 0x0 client never owns",
			clients: map[int]clientSpec{1: {0, 0, false}},
			steps:   []sizeStep{attachStep(1), actStep(1)},
			owner:   0, size: [2]int{80, 24},
		},
		{
			name:    "a read-only client never owns",
			clients: map[int]clientSpec{1: {100, 30, true}},
			steps:   []sizeStep{attachStep(1), actStep(1), resizeStep(1, 90, 20)},
			owner:   0, size: [2]int{80, 24},
		},
		{
			name:    "the owner's resize is applied",
			clients: map[int]clientSpec{1: {100, 30, false}},
			steps:   []sizeStep{attachStep(1), resizeStep(1, 90, 20)},
			owner:   1, size: [2]int{90, 20}, resized: [][2]int{{100, 30}, {90, 20}},
		},
		{
			name:    "another client's resize is recorded, not applied",
			clients: map[int]clientSpec{1: {100, 30, false}, 2: {120, 40, false}},
			steps:   []sizeStep{attachStep(1), attachStep(2), resizeStep(2, 130, 50)},
			owner:   1, size: [2]int{100, 30}, resized: [][2]int{{100, 30}},
		},
		{
			name:    "acting takes the size at the recorded size",
			clients: map[int]clientSpec{1: {100, 30, false}, 2: {120, 40, false}},
			steps:   []sizeStep{attachStep(1), attachStep(2), resizeStep(2, 130, 50), actStep(2)},
			owner:   2, size: [2]int{130, 50}, resized: [][2]int{{100, 30}, {130, 50}},
		},
		{
			name:    "the owner acting changes nothing",
			clients: map[int]clientSpec{1: {100, 30, false}},
			steps:   []sizeStep{attachStep(1), actStep(1), actStep(1)},
			owner:   1, size: [2]int{100, 30}, resized: [][2]int{{100, 30}},
		},
		{
			name:    "a detached client acting takes nothing",
			clients: map[int]clientSpec{1: {100, 30, false}, 2: {120, 40, false}, 3: {60, 20, false}},
			steps:   []sizeStep{attachStep(1), attachStep(2), attachStep(3), detachStep(2), actStep(2)},
			owner:   1, size: [2]int{100, 30}, resized: [][2]int{{100, 30}},
		},
		{
			name:    "an owner resized to 0x0 gives the size up, and the PTY keeps its size",
			clients: map[int]clientSpec{1: {100, 30, false}},
			steps:   []sizeStep{attachStep(1), resizeStep(1, 0, 0)},
			owner:   0, size: [2]int{100, 30}, resized: [][2]int{{100, 30}},
		},
		{
			name:    "a lone 0x0 client that gets a size owns it",
			clients: map[int]clientSpec{1: {0, 0, false}},
			steps:   []sizeStep{attachStep(1), resizeStep(1, 70, 20)},
			owner:   1, size: [2]int{70, 20}, resized: [][2]int{{70, 20}},
		},
		{
			name:    "a 0x0 client that gets a size beside another 0x0 one owns it",
			clients: map[int]clientSpec{1: {0, 0, false}, 2: {0, 0, false}},
			steps:   []sizeStep{attachStep(1), attachStep(2), resizeStep(1, 70, 20)},
			owner:   1, size: [2]int{70, 20}, resized: [][2]int{{70, 20}},
		},
		{
			name:    "a 0x0 client that gets a size beside others that could own does not own",
			clients: map[int]clientSpec{1: {100, 30, false}, 2: {0, 0, false}, 3: {60, 20, false}, 4: {70, 20, false}},
			steps:   []sizeStep{attachStep(1), attachStep(2), attachStep(3), attachStep(4), detachStep(1), resizeStep(2, 90, 20)},
			owner:   0, size: [2]int{100, 30}, resized: [][2]int{{100, 30}},
		},
		{
			name:    "the owner leaving one client with a size makes it the owner at once",
			clients: map[int]clientSpec{1: {100, 30, false}, 2: {120, 40, false}},
			steps:   []sizeStep{attachStep(1), attachStep(2), detachStep(1)},
			owner:   2, size: [2]int{120, 40}, resized: [][2]int{{100, 30}, {120, 40}},
		},
		{
			name:    "the owner leaving one client with a size and a read-only one makes the first the owner",
			clients: map[int]clientSpec{1: {100, 30, false}, 2: {120, 40, false}, 3: {60, 20, true}},
			steps:   []sizeStep{attachStep(1), attachStep(2), attachStep(3), detachStep(1)},
			owner:   2, size: [2]int{120, 40}, resized: [][2]int{{100, 30}, {120, 40}},
		},
		{
			name:    "the owner leaving one client with a size and a 0x0 one (a recorder, a relay) makes the first the owner",
			clients: map[int]clientSpec{1: {100, 30, false}, 2: {0, 0, false}, 3: {120, 40, false}},
			steps:   []sizeStep{attachStep(1), attachStep(2), attachStep(3), detachStep(1)},
			owner:   3, size: [2]int{120, 40}, resized: [][2]int{{100, 30}, {120, 40}},
		},
		{
			name:    "the owner leaving two clients leaves the size unowned",
			clients: map[int]clientSpec{1: {100, 30, false}, 2: {120, 40, false}, 3: {60, 20, false}},
			steps:   []sizeStep{attachStep(1), attachStep(2), attachStep(3), detachStep(1)},
			owner:   0, size: [2]int{100, 30}, resized: [][2]int{{100, 30}},
		},
		{
			name:    "the owner leaving only a read-only client leaves the size unowned",
			clients: map[int]clientSpec{1: {100, 30, false}, 2: {120, 40, true}},
			steps:   []sizeStep{attachStep(1), attachStep(2), detachStep(1)},
			owner:   0, size: [2]int{100, 30}, resized: [][2]int{{100, 30}},
		},
		{
			name:    "a client that does not own leaving changes nothing",
			clients: map[int]clientSpec{1: {100, 30, false}, 2: {120, 40, false}},
			steps:   []sizeStep{attachStep(1), attachStep(2), detachStep(2)},
			owner:   1, size: [2]int{100, 30}, resized: [][2]int{{100, 30}},
		},
		{
			name:    "after the size went unowned the next to act owns it",
			clients: map[int]clientSpec{1: {100, 30, false}, 2: {120, 40, false}, 3: {60, 20, false}},
			steps:   []sizeStep{attachStep(1), attachStep(2), attachStep(3), detachStep(1), actStep(3)},
			owner:   3, size: [2]int{60, 20}, resized: [][2]int{{100, 30}, {60, 20}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pty := &fakePTY{}
			ss := sizeSession(80, 24, pty)
			all := map[int]*client{}
			for id, spec := range tc.clients {
				all[id] = &client{id: id, cols: spec.cols, rows: spec.rows, readOnly: spec.readOnly}
			}
			for _, st := range tc.steps {
				st.run(ss, all)
			}
			checkSize(t, ss, pty, all[tc.owner], tc.size, tc.resized)
		})
	}
}

// checkSize compares the session's owner and size, the sizes applied to
// the PTY, and the resizes pushed to the model, which must be the same.
func checkSize(t *testing.T, ss *session, pty *fakePTY, owner *client, size [2]int, resized [][2]int) {
	t.Helper()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.owner != owner {
		t.Errorf("owner is %s, want %s", clientName(ss.owner), clientName(owner))
	}
	if got := [2]int{ss.cols, ss.rows}; got != size {
		t.Errorf("the session's size is %v, want %v", got, size)
	}
	if !slices.Equal(pty.resized, resized) {
		t.Errorf("the PTY was resized to %v, want %v", pty.resized, resized)
	}
	var pushed [][2]int
	for _, op := range ss.model.pending {
		if op.chunk == nil {
			pushed = append(pushed, [2]int{op.cols, op.rows})
		}
	}
	if !slices.Equal(pushed, resized) {
		t.Errorf("the model was told of the sizes %v, want %v", pushed, resized)
	}
}

func clientName(c *client) string {
	if c == nil {
		return "nobody"
	}
	return fmt.Sprintf("client %d", c.id)
}

// A size the PTY refuses is not recorded as the session's, nor told to the
// model; the client that claimed it still owns the size, so its next
// resize is tried again.
func TestSizeRefusedByThePTY(t *testing.T) {
	pty := &fakePTY{fail: true}
	ss := sizeSession(80, 24, pty)
	c := &client{id: 1, cols: 100, rows: 30}
	all := map[int]*client{1: c}
	attachStep(1).run(ss, all)
	checkSize(t, ss, pty, c, [2]int{80, 24}, nil)
	pty.fail = false
	resizeStep(1, 90, 20).run(ss, all)
	checkSize(t, ss, pty, c, [2]int{90, 20}, [][2]int{{90, 20}})
}
