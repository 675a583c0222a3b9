package mux

import (
	"sync"
	"testing"
	"time"
)

func TestTypistElsewhere(t *testing.T) {
	a, b := &session{}, &session{}
	cases := []struct {
		name string
		act  *session      // who acted; nil: nobody yet
		ago  time.Duration // how long ago
		ask  *session
		want bool
	}{
		{"nobody typed", nil, 0, a, false},
		{"typed in the asking session", a, 0, a, false},
		{"typed in another session", a, 0, b, true},
		{"typed in another session just inside the window", a, typingWindow - 50*time.Millisecond, b, true},
		{"typed in another session before the window", a, typingWindow + time.Millisecond, b, false},
	}
	t.Run("typed in a session that has ended since", func(t *testing.T) {
		var ty typist
		ty.acted(a)
		ty.forget(a)
		if ty.in.Load() != nil {
			t.Fatal("the typist still holds the ended session")
		}
		ty.acted(b)
		ty.forget(a)
		if ty.in.Load() != b || ty.elsewhere(b) {
			t.Fatal("forgetting an ended session dropped the session typed into since")
		}
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ty typist
			ty.clock = frozen()
			if c.act != nil {
				ty.acted(c.act)
				ty.at.Add(-int64(c.ago))
			}
			if got := ty.elsewhere(c.ask); got != c.want {
				t.Fatalf("elsewhere = %v, want %v", got, c.want)
			}
		})
	}
}

// frozen is a typist's clock that stands still: what a test acts stays
// within typingWindow however long the machine takes between its steps.
func frozen() func() int64 { return func() int64 { return 1 << 40 } }

// A worker on a lead runs floodSlice, then sleeps floodPause, and so on;
// typing in its own session, or nobody typing, never stops it.
func TestFloodPaceStep(t *testing.T) {
	a, b := &session{}, &session{}
	var now time.Time
	clock := func() time.Time { return now }
	var slept []time.Duration
	sleep := func(d time.Duration) { slept = append(slept, d); now = now.Add(d) }

	var ty typist
	ty.clock = frozen()
	var p floodPace
	step := func(what string, wantLed bool, wantSlept int) {
		t.Helper()
		if led := p.step(&ty, a, clock, sleep); led != wantLed || len(slept) != wantSlept {
			t.Fatalf("%s: led %v after %d sleeps, want %v after %d", what, led, len(slept), wantLed, wantSlept)
		}
	}
	for i := 0; i < 10; i++ {
		step("nobody typing", false, 0)
		now = now.Add(floodSlice)
	}
	ty.acted(a)
	for i := 0; i < 10; i++ {
		step("typing in its own session", false, 0)
		now = now.Add(floodSlice)
	}

	ty.acted(b)
	step("the first look after a keystroke elsewhere starts a slice", true, 0)
	now = now.Add(floodSlice / 2)
	step("half way through the slice", true, 0)
	now = now.Add(floodSlice / 2)
	step("at the end of the slice", true, 1)
	if slept[0] != floodPause || ty.pauses.Load() != 1 {
		t.Fatalf("slept %v and counted %d pauses, want one floodPause (%v)", slept, ty.pauses.Load(), floodPause)
	}
	step("a new slice begins after the pause", true, 1)
}

// The feeder drawing a backlog takes the lead too: while a person types in
// another session, each of its pauses is a floodPause. The clock says a
// feedSlice passes between two looks at it, so every look after the first
// ends a slice.
func TestFeederGivesWayToTyping(t *testing.T) {
	var mu sync.Mutex
	m := newModel(80, 24, 2000, &mu, func([]byte) {})
	var ty typist
	ty.clock = frozen()
	self, other := &session{}, &session{}
	m.typing, m.self = &ty, self
	m.flooding.Store(true) // its reader is in a burst
	ty.acted(other)
	var fake time.Time
	var flood, short int
	m.clock.now = func() time.Time { fake = fake.Add(feedSlice); return fake }
	m.clock.sleep = func(d time.Duration) {
		switch d {
		case floodPause:
			flood++
		case feedPause:
			short++
		}
		ty.acted(other) // still typing, however slowly this machine draws
	}
	chunk := colourChunk()
	mu.Lock()
	for n := 0; n+len(chunk) <= feedBatch; n += len(chunk) {
		m.pushLocked(modelOp{chunk: chunk})
	}
	mu.Unlock()
	m.feedInline() // as fanOut does
	waitFed(t, m)
	if want := feedBatch / ledYieldEvery * 9 / 10; flood < want || short != 0 {
		t.Fatalf("drawing %d KiB while someone typed elsewhere paused %d times for the typist and %d times briefly, want at least %d and 0", feedBatch>>10, flood, short, want)
	}
	mu.Lock()
	m.stopLocked()
	mu.Unlock()
}

// Slices are taken one at a time across the server: a second flood worker
// whose slice would begin while the first's runs waits for its end.
func TestFloodSlicesOneAtATime(t *testing.T) {
	a, b, typed := &session{}, &session{}, &session{}
	var now time.Time
	clock := func() time.Time { return now }
	var slept []time.Duration
	sleep := func(d time.Duration) { slept = append(slept, d); now = now.Add(d) }
	var ty typist
	ty.clock = frozen()
	ty.acted(typed)
	var pa, pb floodPace
	pa.step(&ty, a, clock, sleep)
	now = now.Add(floodSlice / 5)
	pb.step(&ty, b, clock, sleep)
	if want := floodSlice - floodSlice/5; len(slept) != 1 || slept[0] != want {
		t.Fatalf("the second worker slept %v, want the rest of the first's slice (%v)", slept, want)
	}
	if !pb.resumed.Equal(now) || now.Sub(pa.resumed) != floodSlice {
		t.Fatalf("the second slice began %v after the first, want %v", pb.resumed.Sub(pa.resumed), floodSlice)
	}
}

// ledModel is a model whose clock says a feedSlice passes between two
// looks at it, while someone keeps typing in another session; it counts
// the pauses of each length, and its feeder runs only when fired.
func ledModel() (m *model, mu *sync.Mutex, ft *fakeTimer, flood, short *int) {
	mu = new(sync.Mutex)
	m = newModel(80, 24, 2000, mu, func([]byte) {})
	ty := new(typist)
	ty.clock = frozen()
	other := &session{}
	m.typing, m.self = ty, &session{}
	ty.acted(other)
	var fake time.Time
	flood, short = new(int), new(int)
	m.clock.now = func() time.Time { fake = fake.Add(feedSlice); return fake }
	m.clock.sleep = func(d time.Duration) {
		switch d {
		case floodPause:
			*flood++
		case feedPause:
			*short++
		}
		ty.acted(other)
	}
	ft = &fakeTimer{}
	m.clock.afterFunc = func(_ time.Duration, f func()) feedTimer { ft.f = f; ft.armed = true; return ft }
	return m, mu, ft, flood, short
}

// Only a flood's feeder takes the lead: a session that printed a little
// (a prompt, a few coloured lines) is drawn at once however someone types
// elsewhere, and so is a backlog a restore or capture waits for. (The
// review found both paced: a quiet session's answers to queries held up,
// and a wr capture of a flooding session seven times slower.)
func TestOnlyFloodsAreLed(t *testing.T) {
	t.Run("a feeder pass that is neither a flood nor a backlog", func(t *testing.T) {
		m, mu, ft, flood, _ := ledModel()
		mu.Lock()
		m.pushLocked(modelOp{chunk: colourChunk()})
		mu.Unlock()
		m.feedInline() // as fanOut does
		ft.fire()
		waitFed(t, m)
		if *flood != 0 {
			t.Fatalf("4 KiB of a quiet session took %d flood pauses", *flood)
		}
	})
	t.Run("a backlog drawn for a restore", func(t *testing.T) {
		m, mu, _, flood, _ := ledModel()
		chunk := colourChunk()
		mu.Lock()
		for n := 0; n+len(chunk) <= feedBatch/2; n += len(chunk) {
			m.pushLocked(modelOp{chunk: chunk})
		}
		mu.Unlock()
		m.feedInline() // as fanOut does
		m.lockCaughtUp(nil)
		m.unlock()
		if *flood != 0 {
			t.Fatalf("a restore's %d KiB backlog took %d flood pauses", feedBatch>>11, *flood)
		}
	})
	t.Run("a flood", func(t *testing.T) {
		m, mu, ft, flood, _ := ledModel()
		m.flooding.Store(true)
		mu.Lock()
		for i := 0; i < 4; i++ {
			m.pushLocked(modelOp{chunk: colourChunk()})
		}
		mu.Unlock()
		m.feedInline() // as fanOut does
		ft.fire()
		waitFed(t, m)
		if *flood == 0 {
			t.Fatal("a flood's feeder took no flood pause")
		}
	})
}
