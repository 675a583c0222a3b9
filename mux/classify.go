package mux

import (
	"bytes"
	"fmt"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// inputKind says what a run of a client's input is, which decides whether
// it claims the size and whether it reaches the application (design
// section 6).
type inputKind uint8

const (
	// inputAct is a person acting: keys in any encoding, mouse presses,
	// releases and drags, pastes. It is forwarded and claims the size.
	inputAct inputKind = iota + 1
	// inputReport is the terminal answering: focus reports, CPR, DSR, DA,
	// DECRPM, window and kitty-flags reports, and every string sequence
	// (OSC, DCS, APC, PM, SOS). It never claims, and is forwarded only from
	// the client that answers for the session, so one query gets one answer.
	inputReport
	// inputPassive is mouse wheel and motion with no button held: forwarded
	// from anyone, claims nothing (scrolling a window you are reading is
	// not taking over its size).
	inputPassive
	// inputOwner is the owner's input, passed through undecided: forwarded,
	// claims nothing (the client owned the size when it was read).
	inputOwner
	// inputAnswer is an answer to a query this client's terminal was
	// sent (queries.go): forwarded by who answered for the session when
	// the query went out (segment.query, session.answerGoesLocked).
	inputAnswer
)

func (k inputKind) String() string {
	switch k {
	case inputAct:
		return "act"
	case inputReport:
		return "report"
	case inputPassive:
		return "passive"
	case inputOwner:
		return "owner"
	case inputAnswer:
		return "answer"
	}
	return "none"
}

// Caps on a pending sequence. Past them it is abandoned and forwarded as
// ordinary input, never truncated: a truncated sequence keeps its final
// byte, so padding could get a chosen final byte classified as a report.
const (
	maxCSIPending    = 64       // parameter and intermediate bytes of a CSI
	maxStringPending = 64 << 10 // the body of an OSC, DCS, APC, PM or SOS
)

// pasteEnd closes a bracketed paste.
const pasteEnd = "\x1b[201~"

// segment is a run of classified bytes in inputClassifier.out.
type segment struct {
	kind       inputKind
	start, end int
	query      owedAnswer // an inputAnswer's: the query it answers
}

// inputClassifier splits one client's input into acting, report and passive
// runs. It keeps its state across calls, so a report split over two frames
// is never read as a keystroke: the bytes of an unfinished sequence are
// held until it ends (or passes a cap). One per client; not safe for
// concurrent use.
type inputClassifier struct {
	p *ansi.Parser

	seq     []byte     // bytes of the unfinished sequence, held back
	seqSent int        // how many of seq were already forwarded in passthrough
	strESC  bool       // a string ended with ESC: its ST's '\' is next
	strKind inputKind  // and what that string was
	query   owedAnswer // the query the answer being ended answers (answerKind)
	// answered is the queries answered in the last classify by answers
	// that went out undecided, as the owner's (passthrough, or the rest of
	// one whose start did): the session marks them answered in its ledger
	// (input), or another client's answer would go too.
	answered []owedAnswer
	utf8Need int  // continuation bytes still to come of a string's UTF-8 character
	x10Need  int  // raw X10 mouse bytes still to come after CSI M
	paste    bool // inside a bracketed paste
	pasteEnd int  // how much of pasteEnd has matched

	// Set by the parser's callbacks during one Advance.
	done     bool
	doneKind inputKind
	executed bool

	// owed is the answers this client's terminal owes, which decide where
	// an answer goes and what CSI 1;m R is (queries.go).
	owed owedAnswers

	// acted reports that the last classify or resolveESC found a person
	// acting (a key, a click, a paste), the owner's input included: the
	// server's sign that someone is typing (typing.go).
	acted bool

	out  []byte
	segs []segment
}

func newInputClassifier() *inputClassifier {
	c := &inputClassifier{}
	// Not ansi.NewParser: it makes a 64 KiB buffer for a string's body,
	// garbage the moment it is replaced, for every client that attaches.
	// The parser keeps the string body for us only up to its own buffer;
	// we hold the raw bytes ourselves, so its copy can stay small.
	c.p = new(ansi.Parser)
	c.p.SetParamsSize(parser.MaxParamsSize)
	c.p.SetDataSize(256)
	c.p.SetHandler(ansi.Handler{
		Print:     func(rune) { c.finish(inputAct) },
		Execute:   func(byte) { c.executed = true },
		HandleCsi: func(cmd ansi.Cmd, params ansi.Params) { c.finishCSI(cmd, params) },
		HandleEsc: func(ansi.Cmd) { c.finish(inputAct) },
		HandleDcs: func(cmd ansi.Cmd, _ ansi.Params, _ []byte) { c.finishString(dcsAnswer(cmd)) },
		HandleOsc: func(cmd int, data []byte) { c.finishString(oscAnswer(cmd, data)) },
		HandleApc: func([]byte) { c.finishString(0) },
		HandlePm:  func([]byte) { c.finishString(0) },
		HandleSos: func([]byte) { c.finishString(0) },
	})
	return c
}

func (c *inputClassifier) finish(k inputKind) { c.done, c.doneKind = true, k }

// finishString: a string sequence ended, the answer to a query of kind k
// (0: none known). People do not type strings; terminals answer with them.
// Ended by ESC, its terminator's '\' is still to come and belongs to it
// (see step).
func (c *inputClassifier) finishString(k queryKind) {
	c.finish(c.answerKind(k, time.Now()))
}

// answerKind decides a report that answers a query of kind k: one owed is
// an answer, forwarded by who answered when the query went out
// (queries.go), and a report no query is owed for goes from whoever answers
// now.
func (c *inputClassifier) answerKind(k queryKind, now time.Time) inputKind {
	if k == 0 {
		return inputReport
	}
	query, owed := c.owed.answered(k, now)
	if !owed {
		return inputReport
	}
	c.query = query
	return inputAnswer
}

func (c *inputClassifier) finishCSI(cmd ansi.Cmd, params ansi.Params) {
	if cmd.Final() == 'M' && cmd.Prefix() == 0 && cmd.Intermediate() == 0 && len(params) == 0 {
		// X10 mouse: CSI M and three raw bytes the parser must not see
		// (they may be anything from 0x20 to 0xff).
		c.x10Need = 3
		return
	}
	if cmd.Final() == '~' && cmd.Prefix() == 0 && len(params) == 1 {
		if v, _, _ := params.Param(0, 0); v == 200 {
			c.paste = true
			c.pasteEnd = 0
		}
	}
	kind := classifyCSI(cmd, params)
	if kind == inputReport {
		kind = c.answerKind(csiAnswer(cmd, params), time.Now())
		if kind == inputReport && isModifiedF3(cmd, params) {
			kind = inputAct
		}
	}
	c.finish(kind)
}

// isModifiedF3 reports whether a cursor position report owed to no query
// is a modified F3 (queries.go).
func isModifiedF3(cmd ansi.Cmd, params ansi.Params) bool {
	if cmd.Final() != 'R' || cmd.Prefix() != 0 || len(params) != 2 {
		return false
	}
	row, _, _ := params.Param(0, 1)
	mods, _, _ := params.Param(1, 1)
	return row == 1 && mods >= 2 && mods <= 16
}

// classifyCSI decides a complete CSI sequence from a terminal.
func classifyCSI(cmd ansi.Cmd, params ansi.Params) inputKind {
	prefix, inter, final := cmd.Prefix(), cmd.Intermediate(), cmd.Final()
	switch final {
	case 'I', 'O': // focus in/out
		if prefix == 0 && inter == 0 && len(params) == 0 {
			return inputReport
		}
	case 'S': // XTSMGRAPHICS: CSI ? Pi;Ps;Pv S (CSI 1;2 S is Shift+F4)
		if prefix == '?' {
			return inputReport
		}
	case 'x': // DECREPTPARM: CSI Ps;Pp;Pb;Pr;Pt;Pc;Pf x
		if prefix == 0 && inter == 0 && len(params) == 7 {
			return inputReport
		}
	case 'w': // DECLRP, a locator report: CSI Pe;Pb;Pr;Pc;Pp & w
		if inter == '&' {
			return inputReport
		}
	case 'R': // cursor position report (CSI r;c R, and DECXCPR CSI ? r;c R)
		if inter == 0 && (prefix == 0 || prefix == '?') && len(params) >= 2 {
			return inputReport
		}
	case 'n': // DSR answers (CSI 0 n, CSI 3 n) and theme reports (CSI ? 997;Ps n)
		return inputReport
	case 'y': // DECRPM: CSI ? Ps;Pm $ y
		if inter == '$' {
			return inputReport
		}
	case 'c': // DA1 / DA2 / DA3 answers
		if prefix == '?' || prefix == '>' || prefix == '=' {
			return inputReport
		}
	case 't': // window reports: CSI 8;r;c t, CSI 4;h;w t, ...
		return inputReport
	case 'u': // kitty keyboard flags report CSI ? flags u; CSI code;mods u is a key
		if prefix == '?' {
			return inputReport
		}
	case 'M', 'm':
		if prefix == '>' && final == 'm' { // XTQMODKEYS: CSI > Pp;Pv m
			return inputReport
		}
		if prefix == '<' { // SGR 1006: CSI < b;x;y M|m
			b, _, _ := params.Param(0, 0)
			return classifyMouseButton(b)
		}
		if prefix == 0 && final == 'M' && len(params) == 3 { // urxvt 1015: CSI b;x;y M
			b, _, _ := params.Param(0, 32)
			return classifyMouseButton(b - 32)
		}
	}
	return inputAct
}

// classifyMouseButton reads a mouse report's button code: 64 marks the
// wheel, 32 motion, and low bits 3 with motion mean no button is held.
func classifyMouseButton(b int) inputKind {
	switch {
	case b < 0:
		return inputAct
	case b&64 != 0 && b&128 == 0:
		return inputPassive // wheel (buttons 4-7)
	case b&32 != 0 && b&3 == 3:
		return inputPassive // motion, nothing pressed
	}
	return inputAct
}

// classify appends the classified runs of b to the classifier's output and
// returns them; the slices are valid until the next call. With passthrough
// set (the client owns the size, so nothing it sends needs deciding) every
// byte is forwarded at once as the owner's, and the parser still follows
// along so a later non-owner frame is read in context. The rest of a
// sequence whose start went out that way goes out the same way (see
// flush): half a report dropped would leave the application half of one.
func (c *inputClassifier) classify(b []byte, passthrough bool) ([]byte, []segment) {
	c.out, c.segs, c.acted, c.answered = c.out[:0], c.segs[:0], false, c.answered[:0]
	if passthrough {
		if len(c.seq) > c.seqSent {
			c.emit(inputOwner, c.seq[c.seqSent:])
		}
		c.seqSent = len(c.seq)
		c.emit(inputOwner, b)
	}
	for i := 0; i < len(b); i++ {
		// Fast path: printable ASCII in the ground state is a keystroke and
		// leaves the parser where it is.
		if j := c.plainRun(b[i:]); j > 0 {
			c.acted = true
			if !passthrough {
				c.emit(inputAct, b[i:i+j])
			}
			i += j - 1
			continue
		}
		c.step(b[i], passthrough)
	}
	if passthrough {
		c.seqSent = len(c.seq)
	}
	return c.out, c.segs
}

// plainRun returns how many leading bytes of b are printable ASCII that the
// parser, in its ground state with nothing held, would simply print.
func (c *inputClassifier) plainRun(b []byte) int {
	if c.paste || c.x10Need > 0 || c.strESC || len(c.seq) > 0 || c.p.State() != parser.GroundState {
		return 0
	}
	n := 0
	for n < len(b) && b[n] >= 0x20 && b[n] < 0x7f {
		n++
	}
	return n
}

// step advances over one byte.
func (c *inputClassifier) step(ch byte, passthrough bool) {
	if c.paste {
		c.seq = append(c.seq, ch)
		switch {
		case ch == pasteEnd[c.pasteEnd]:
			c.pasteEnd++
		case ch == pasteEnd[0]:
			c.pasteEnd = 1
		default:
			c.pasteEnd = 0
		}
		if c.pasteEnd == len(pasteEnd) {
			// Both, or the state an upgrade writes down (a paste over, its
			// end matched) is one restoreClassifier refuses as impossible,
			// and the client's input starts afresh in the new server.
			c.paste, c.pasteEnd = false, 0
		}
		// Everything in a paste is the person's: forward it as it comes.
		c.flush(inputAct, passthrough)
		return
	}
	if c.x10Need > 0 {
		c.seq = append(c.seq, ch)
		c.x10Need--
		if c.x10Need == 0 {
			k := classifyMouseButton(int(c.seq[len(c.seq)-3]) - 32)
			c.flush(k, passthrough)
		}
		return
	}
	if c.strESC {
		c.strESC = false
		if ch == '\\' {
			// The ST's second byte: part of the report before it.
			c.p.Advance(ch)
			c.seq = append(c.seq, ch)
			c.flush(c.strKind, passthrough)
			return
		}
		// Not ST: the ESC before ch starts a new sequence (the parser is
		// already in its escape state); the string before it is complete.
		c.flushHead(c.strKind, passthrough)
	}

	if inCSI(c.p.State()) && isC0(ch) {
		// A terminal executes a C0 control inside a control sequence and
		// carries on with the sequence (CSI 2 BS C is BS, then CSI 2 C).
		// The parser would overwrite the pending command with the control
		// (charmbracelet/x/ansi v0.11.9), so it never sees it: the control
		// is held with the sequence and goes wherever the sequence goes,
		// and a report with a stray control in it is still a report.
		c.seq = append(c.seq, ch)
		c.checkCaps(passthrough)
		return
	}

	if st := c.p.State(); inString(st) {
		if len(c.seq) <= 2 || ch < 0x80 {
			c.utf8Need = 0 // a new string, or a character over
		}
		switch {
		case c.seq[0] == ansi.ESC && ch >= 0x80 && (ch != 0x9c || c.utf8Need > 0):
			// A string's body is UTF-8, where 0x9C (ST in 8 bits) is the
			// middle byte of 本 (E6 9C AC): the parser took it for the
			// string's end, and what followed for keys. A 0x9C that
			// continues no character is ST (rxvt-unicode ends its 7-bit
			// answers so); any other high byte is the body's, as the
			// parser would cancel an APC or a DCS header at it.
			switch {
			case ch >= 0xc0:
				c.utf8Need = utf8Continuations(ch)
			case c.utf8Need > 0:
				c.utf8Need--
			}
			c.seq = append(c.seq, ch)
			c.checkCaps(passthrough)
			return
		case isC0(ch) && ch != ansi.BEL:
			// No terminal answers with a control in a string (BEL ends an
			// OSC): this one was typed, ESC and its introducer too (Alt+]
			// and keys), and it would otherwise hold every key after it.
			c.seq = append(c.seq, ch)
			c.p.Reset()
			c.flush(inputAct, passthrough)
			return
		case len(c.seq) == 2 && c.seq[0] == ansi.ESC && !answerStarts(c.seq[1], ch):
			// No answer starts so: ESC and the introducer were Alt+] (or
			// Alt+P, Alt+_), and ch is a key of its own.
			c.p.Reset()
			c.flush(inputAct, passthrough)
		}
	}

	c.done, c.executed = false, false
	before := c.p.State()
	c.p.Advance(ch)
	c.seq = append(c.seq, ch)
	after := c.p.State()

	switch {
	case before == parser.EscapeState && (after == parser.SosStringState || after == parser.PmStringState):
		// No terminal answers with SOS or PM: ESC X and ESC ^ are Alt+X
		// and Alt+^ (Emacs's M-x and M-^).
		c.p.Reset()
		c.flush(inputAct, passthrough)
	case c.done && c.doneKind != inputAct && ch == ansi.ESC:
		// A string ended with ESC: wait for the '\' of its ST.
		c.strESC, c.strKind = true, c.doneKind
	case c.done:
		c.flush(c.doneKind, passthrough)
	case c.x10Need > 0:
		// CSI M: the raw bytes follow.
	case ch == ansi.ESC && after == parser.EscapeState && len(c.seq) > 1:
		// An ESC cuts short whatever was pending (ESC ESC included): what
		// came before it was typed, and the ESC starts afresh, so a report
		// right behind an Escape keystroke is still read as a report.
		c.flushHead(inputAct, passthrough)
	case c.executed && before == parser.GroundState:
		c.flush(inputAct, passthrough) // a control key: Enter, Tab, ctrl-C...
	case c.executed, after == parser.GroundState && before != parser.GroundState:
		// A control byte right after ESC (Alt with a control key: Alt-Enter
		// is ESC CR), or a sequence cancelled: no terminal answers like
		// that, so it is the person's. (Inside a CSI a control was held
		// above and never reaches the parser.)
		c.p.Reset()
		c.flush(inputAct, passthrough)
	case after == parser.GroundState:
		c.flush(inputAct, passthrough)
	default:
		c.checkCaps(passthrough)
	}
}

// inCSI reports whether the parser is inside a control sequence, between
// its introducer and its final byte.
func inCSI(st parser.State) bool {
	return st == parser.CsiEntryState || st == parser.CsiParamState || st == parser.CsiIntermediateState
}

// inString reports whether the parser is inside a string sequence (OSC,
// DCS, SOS, PM, APC), between its introducer and its terminator.
func inString(st parser.State) bool {
	switch st {
	case parser.OscStringState, parser.DcsEntryState, parser.DcsParamState, parser.DcsIntermediateState,
		parser.DcsStringState, parser.SosStringState, parser.PmStringState, parser.ApcStringState:
		return true
	}
	return false
}

// answerStarts reports whether ch can open the body of a terminal's answer
// introduced by ESC intro: an OSC's number (or xterm's l and L title
// reports); a DCS's parameter, the > of XTVERSION, the ! of DA3 or the @ of
// kitty's remote control (@kitty-cmd); the G of a kitty graphics answer
// (APC).
func answerStarts(intro, ch byte) bool {
	digit := ch >= '0' && ch <= '9'
	switch intro {
	case ']':
		return digit || ch == 'l' || ch == 'L'
	case 'P':
		return digit || ch == '>' || ch == '!' || ch == '@'
	case '_':
		return ch == 'G'
	}
	return true
}

// utf8Continuations is how many continuation bytes follow UTF-8 lead byte b.
func utf8Continuations(b byte) int {
	switch {
	case b >= 0xf0:
		return 3
	case b >= 0xe0:
		return 2
	}
	return 1
}

// isC0 reports whether ch is a C0 control a terminal executes without
// leaving the sequence it is in: all but ESC, which starts a new one, and
// CAN and SUB, which cancel it.
func isC0(ch byte) bool {
	return ch < 0x20 && ch != ansi.ESC && ch != ansi.CAN && ch != ansi.SUB
}

// flushHead ends everything held before the last byte (an ESC) as a run of
// kind k, and keeps the ESC as the start of the next sequence.
func (c *inputClassifier) flushHead(k inputKind, passthrough bool) {
	last := len(c.seq) - 1
	esc := c.seq[last]
	escSent := c.seqSent > last
	c.seq = c.seq[:last]
	c.flush(k, passthrough)
	c.seq = append(c.seq, esc)
	if escSent {
		c.seqSent = 1
	}
}

// checkCaps abandons a pending sequence that grew past its cap.
func (c *inputClassifier) checkCaps(passthrough bool) {
	limit := maxCSIPending + 2 // the introducer (ESC [) is not a parameter byte
	switch c.p.State() {
	case parser.OscStringState, parser.DcsStringState, parser.DcsEntryState,
		parser.DcsParamState, parser.DcsIntermediateState,
		parser.SosStringState, parser.PmStringState, parser.ApcStringState:
		limit = maxStringPending + 2
	}
	if len(c.seq) > limit {
		c.p.Reset()
		c.flush(inputAct, passthrough)
	}
}

// flush ends the held sequence as one run of kind k.
func (c *inputClassifier) flush(k inputKind, passthrough bool) {
	if k == inputAct && len(c.seq) > 0 {
		c.acted = true
	}
	if k == inputAnswer && (passthrough || c.seqSent > 0) {
		c.answered = append(c.answered, c.query)
	}
	if !passthrough && len(c.seq) > c.seqSent {
		if c.seqSent > 0 && k != inputAct {
			// Its start already went through as the owner's: the rest of
			// a report goes too, whoever answers now. A key (Escape, then
			// a letter after another client took the size) still claims.
			k = inputOwner
		}
		c.emit(k, c.seq[c.seqSent:])
	}
	c.seq = c.seq[:0]
	c.seqSent = 0
}

func (c *inputClassifier) emit(k inputKind, b []byte) {
	if len(b) == 0 {
		return
	}
	start := len(c.out)
	c.out = append(c.out, b...)
	var query owedAnswer
	if k == inputAnswer {
		query = c.query
	}
	if n := len(c.segs); n > 0 && c.segs[n-1].kind == k && c.segs[n-1].query == query {
		c.segs[n-1].end = len(c.out)
		return
	}
	c.segs = append(c.segs, segment{kind: k, start: start, end: len(c.out), query: query})
}

// loneESC reports whether all that is held is a single ESC (a person
// pressing Escape, or the first byte of a report whose rest is in flight),
// or an ESC and an introducer with nothing after it: Alt with _ P or ]
// (M-_ is bash's yank-last-arg) looks like the start of a string, and Alt
// with [ like a CSI's, and neither ends by itself, so the next key would
// wait for whatever ends them. (Alt with X or ^ is decided at once: no
// answer is an SOS or a PM.)
func (c *inputClassifier) loneESC() bool {
	if c.seqSent != 0 || c.paste || c.x10Need > 0 || c.strESC || len(c.seq) == 0 || c.seq[0] != ansi.ESC {
		return false
	}
	switch len(c.seq) {
	case 1:
		return true
	case 2:
		switch c.seq[1] {
		case '_', 'P', ']', '[':
			return true
		}
	}
	return false
}

// endsOnESC reports whether all the classifier holds is one ESC, held or
// already forwarded as the owner's: Escape pressed alone, or the first
// byte of a report.
func (c *inputClassifier) endsOnESC() bool {
	return !c.paste && c.x10Need == 0 && !c.strESC && len(c.seq) == 1 && c.seq[0] == ansi.ESC
}

// resolveESC settles what loneESC held when nothing followed in time: it
// was typed.
func (c *inputClassifier) resolveESC() ([]byte, []segment) {
	c.out, c.segs, c.acted = c.out[:0], c.segs[:0], false
	if c.loneESC() {
		c.p.Reset()
		c.flush(inputAct, false)
	}
	return c.out, c.segs
}

// classifierState is what a classifier holds between two frames, written
// down for a hand-off (handoff.go): the bytes of an unfinished sequence,
// how many of them went out already, and whether a bracketed paste is
// open. The parser's own state is not in it: the held bytes, fed again to
// a fresh classifier, bring it back (restoreClassifier).
type classifierState struct {
	Seq      []byte `json:"seq,omitempty"`
	SeqSent  int    `json:"seq_sent,omitempty"`
	Paste    bool   `json:"paste,omitempty"`
	PasteEnd int    `json:"paste_end,omitempty"`
	// Owed is the answers the terminal owes (queries.go).
	Owed []owedState `json:"owed,omitempty"`
	// CursorQueries is how many cursor reports of Owed's; a server before
	// Owed wrote only this (and reads only this).
	CursorQueries int `json:"cursor_queries,omitempty"`
}

// state writes down what c holds.
func (c *inputClassifier) state() classifierState {
	now := time.Now()
	return classifierState{Seq: append([]byte(nil), c.seq...), SeqSent: c.seqSent, Paste: c.paste, PasteEnd: c.pasteEnd,
		Owed: c.owed.state(now), CursorQueries: c.owed.count(queryCursor, now)}
}

// restoreClassifier makes a classifier that holds what st says. The held
// bytes are stepped through again, with nothing emitted: none of them
// completes a sequence (it would not be held), so they leave the parser,
// and the X10 and string-terminator states, where they were.
func restoreClassifier(st classifierState) (*inputClassifier, error) {
	c := newInputClassifier()
	if !st.Paste && st.PasteEnd == len(pasteEnd) {
		st.PasteEnd = 0 // a paste over, as a server before this fix wrote it down
	}
	if st.SeqSent < 0 || st.SeqSent > len(st.Seq) || st.PasteEnd < 0 || st.PasteEnd >= len(pasteEnd) ||
		(st.Paste && len(st.Seq) > 0) || (!st.Paste && st.PasteEnd != 0) ||
		st.CursorQueries < 0 || st.CursorQueries > maxOwed {
		return nil, fmt.Errorf("%w: an impossible input state %+v", ErrHandoff, st)
	}
	for _, b := range st.Seq {
		c.step(b, false)
	}
	if len(c.out) != 0 || !bytes.Equal(c.seq, st.Seq) {
		return nil, fmt.Errorf("%w: held input %q is not an unfinished sequence", ErrHandoff, st.Seq)
	}
	c.seqSent, c.paste, c.pasteEnd = st.SeqSent, st.Paste, st.PasteEnd
	now := time.Now()
	switch {
	case st.Owed != nil:
		if !c.owed.restore(st.Owed, now) {
			return nil, fmt.Errorf("%w: impossible answers owed %+v", ErrHandoff, st.Owed)
		}
	case st.CursorQueries > 0:
		// An older server kept no more than the count, and forwarded an
		// answer from whoever answered when it came.
		for range st.CursorQueries {
			c.owed.owe([]queryKind{queryCursor}, 0, answererUnknown, now)
		}
	}
	return c, nil
}
