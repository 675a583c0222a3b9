package screen

import (
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

const (
	// DefaultScrollback is the number of scrollback lines New keeps when
	// asked for zero or fewer.
	DefaultScrollback = 2000
	// MaxScrollback bounds the scrollback New accepts, so a typo cannot
	// reserve gigabytes.
	MaxScrollback = 1 << 20

	// MaxCols and MaxRows bound the screen size: a bogus size from a client
	// must not allocate without limit. The server holds a PTY to them too,
	// so that the program never draws for a width the model cannot hold.
	MaxCols = 4096
	MaxRows = 2048

	// maxParam bounds numeric parameters: counts past it mean "all".
	maxParam = 1<<16 - 1

	// oscDataSize is the longest OSC payload (title, hyperlink) kept; the
	// parser truncates past it.
	oscDataSize = 4096
)

// Screen is a terminal screen model. It is not safe for concurrent use; the
// server serialises calls.
type Screen struct {
	cols, rows int

	primary *grid
	alt     *grid // allocated the first time the application enters it
	g       *grid // the active one

	// The cursor. x is always in [0, cols) and y in [0, rows). pendingWrap
	// is the "last column flag": a character was written in the last
	// column, and the next printable character wraps first if autowrap is
	// on. As in xterm it is set with autowrap off too, and kept through
	// ?7l and ?7h: off, a character overwrites the last column instead.
	x, y        int
	pendingWrap bool
	onAlt       bool // g is alt; here, beside pendingWrap, it takes no word of its own
	cursorStyle int  // DECSCUSR parameter, 0 for the terminal's default

	pen        style
	penIdx     styleID // pen's index in the style table, unless penStale
	penStale   bool
	eraseBG    color // cache for eraseStyle
	eraseIdx   styleID
	eraseValid bool

	top, bottom int // scroll region: rows [top, bottom)
	// tabs is the tab stop at column i. Screens whose stops are the
	// power-on ones share them, as a slice of defaultTabs, until a stop is
	// set or cleared (writableTabs): few programs ever do.
	tabs []bool

	charsets    [4]byte // G0-G3 designations: 0 (ASCII), '0' (DEC special graphics), 'A' (UK)
	gl          uint8   // which G set is invoked into GL (SI/SO/LS2/LS3)
	singleShift uint8   // 2 or 3 after SS2/SS3, for the next character only

	modes modeSet
	// modifyOtherKeys is xterm's modifyOtherKeys level (CSI > 4 ; n m),
	// 0 when off.
	modifyOtherKeys uint8

	lastChar rune // for REP: the character printed last, if nothing came after it
	// joining is set right after a ZWJ joined a cell: the next character
	// belongs to the same emoji sequence. Anything but a character ends it.
	joining bool

	title, cwd string
	titles     []titleEntry // the title stack (CSI 22 t), innermost last

	// parser is nil between Writes that leave it in the ground state: see
	// takeParser.
	parser *ansi.Parser
	// handler is made for the first sequence the parser is taken for: its
	// methods' closures are an allocation an idle prompt need not pay.
	handler  *ansi.Handler
	reply    func([]byte)
	replyBuf []byte
	scratch  []byte // for building clusters

	styles styleTable
	// clusters and links are noClusters and noLinks, shared, until the
	// first combining character or hyperlink (ownClusters, ownLinks): most
	// screens never hold one, and the tables, in the Screen, would take it
	// to the next size class up, a third bigger, for every idle session.
	clusters *clusterTable
	links    *linkTable
	// cellsHeld is how many cells the last compaction walked: see slack.
	cellsHeld   int
	compactions int // for tests
	repeated    int // cells REP has drawn, for tests

	skipped int // bytes WriteBatch has not drawn, for tests

	yield      func() // see SetYield
	yieldEvery int
	sinceYield int
}

// savedCursor is what DECSC (ESC 7) saves and DECRC (ESC 8) restores.
type savedCursor struct {
	x, y        int
	pendingWrap bool
	pen         style
	charsets    [4]byte
	gl          uint8
	origin      bool
	valid       bool
}

// kittyFlags is the kitty keyboard protocol's flags and their stack.
type kittyFlags struct {
	flags uint8
	stack []uint8 // pushed values, innermost last
}

const maxKittyStack = 16

// New returns a blank screen of the given size. scrollback 0 means
// DefaultScrollback lines, and a negative one none (tmux's history-limit 0).
func New(cols, rows, scrollback int) *Screen {
	cols, rows = clampSize(cols, rows)
	switch {
	case scrollback == 0:
		scrollback = DefaultScrollback
	case scrollback < 0:
		scrollback = 0
	}
	scrollback = min(scrollback, MaxScrollback)
	s := &Screen{cols: cols, rows: rows}
	s.primary = newGrid(rows, scrollback)
	s.g = s.primary
	s.styles.reset(0, style{})
	s.clusters, s.links = &noClusters, &noLinks
	s.resetState()
	return s
}

func clampSize(cols, rows int) (int, int) {
	return min(max(cols, 1), MaxCols), min(max(rows, 1), MaxRows)
}

// resetState puts everything but the grids' contents, the title and the
// tables in their power-on state.
func (s *Screen) resetState() {
	s.x, s.y, s.pendingWrap = 0, 0, false
	s.cursorStyle = 0
	s.pen, s.penIdx, s.penStale = style{}, 0, false
	s.top, s.bottom = 0, s.rows
	s.tabs = defaultTabs[:s.cols:s.cols]
	s.charsets, s.gl, s.singleShift = [4]byte{}, 0, 0
	s.modes = defaultModes
	s.modifyOtherKeys = 0
	s.lastChar = 0
}

// defaultTabs is the power-on tab stops, every 8 columns, of the widest
// screen. It is only ever read.
var defaultTabs = func() []bool {
	tabs := make([]bool, MaxCols)
	for i := 8; i < len(tabs); i += 8 {
		tabs[i] = true
	}
	return tabs
}()

// sharedTabs reports whether s.tabs is defaultTabs' (a screen is never
// narrower than one column).
func (s *Screen) sharedTabs() bool { return &s.tabs[0] == &defaultTabs[0] }

// writableTabs returns s.tabs, first copying them if they are shared.
func (s *Screen) writableTabs() []bool {
	if s.sharedTabs() {
		s.tabs = append([]bool(nil), s.tabs...)
	}
	return s.tabs
}

// noClusters and noLinks are the empty tables screens share until they
// hold a cluster or a link; only ever read. A link table holds the
// reserved "no link" at index 0.
var (
	noClusters = clusterTable{open: -1}
	noLinks    = func() (t linkTable) { t.reset(0, ""); return t }()
)

// ownClusters gives s a cluster table of its own, if it has none yet.
func (s *Screen) ownClusters() {
	if s.clusters == &noClusters {
		s.clusters = new(clusterTable)
		s.clusters.reset(0)
	}
}

// ownLinks gives s a link table of its own, if it has none yet.
func (s *Screen) ownLinks() {
	if s.links == &noLinks {
		s.links = new(linkTable)
		s.links.reset(0, "")
	}
}

// Write feeds PTY output to the screen. It never fails and keeps the parser
// state across calls: a sequence split over two Writes is read as one.
func (s *Screen) Write(p []byte) (int, error) {
	for i := 0; i < len(p); {
		if s.parser == nil || s.parser.State() == parser.GroundState {
			// Fast paths for the parser's ground state, where a printable
			// ASCII byte can only print and a C0 byte can only execute.
			b := p[i]
			switch {
			case b >= 0x20 && b < 0x7f:
				j := i + 1 + printableLen(p[i+1:])
				s.printASCII(p[i:j])
				i = j
				continue
			case b < 0x20 && b != 0x1b:
				s.execute(b)
				i++
				continue
			case b >= 0xc2 && b <= 0xf4:
				// A complete, valid UTF-8 character prints exactly as the
				// parser would print it. Anything else (split across
				// Writes, or invalid) is left to the parser.
				if r, n := utf8.DecodeRune(p[i:]); n > 1 {
					s.print(r)
					i += n
					continue
				}
			}
		}
		if s.parser == nil {
			s.takeParser()
		}
		if b := p[i]; b < 0x20 && b != 0x1b && b != 0x18 && b != 0x1a && s.executeInSequence(b) {
			i++
			continue
		}
		prev := s.parser.State()
		s.parser.Advance(p[i])
		i++
		if prev != parser.OscStringState && s.parser.State() == parser.OscStringState {
			i += s.oscString(p[i:])
		}
	}
	s.releaseParser()
	return len(p), nil
}

// printableLen is how many bytes p starts with that are printable ASCII.
// It is the loop every byte of plain output goes through: kept out of
// line so that where it lands, and so how fast it runs, does not change
// with the code around it in Write (a loop that straddles a 32-byte
// boundary ran Write's scan at half the speed).
//
//go:noinline
func printableLen(p []byte) int {
	for i, b := range p {
		if b < 0x20 || b >= 0x7f {
			return i
		}
	}
	return len(p)
}

// executeInSequence executes the C0 control b (not CAN, SUB or ESC, which
// end a sequence) if the parser is inside an ESC or CSI sequence, and
// reports whether it did. There a C0 control executes and the sequence goes
// on (CSI 2 BS C is BS, then CSI 2 C), but the parser's own execute action
// would overwrite the command it has collected so far (its prefix and
// intermediate): executed here, the parser never sees it, and its state is
// the one the control would have left.
func (s *Screen) executeInSequence(b byte) bool {
	switch s.parser.State() {
	case parser.EscapeState, parser.EscapeIntermediateState,
		parser.CsiEntryState, parser.CsiParamState, parser.CsiIntermediateState:
		s.execute(b)
		return true
	}
	return false
}

// parsers holds the escape-sequence parsers of screens between sequences.
// A parser carries 4 KiB for string payloads and 256 bytes of parameters,
// most of what an idle screen would hold; but its state only matters in
// the middle of a sequence, and an idle screen is almost always in the
// ground state. So a screen takes one for the Write that needs it and
// gives it back when that Write ends in the ground state, and an idle
// server holds a few parsers, not one per session.
var parsers = sync.Pool{New: func() any {
	p := new(ansi.Parser)
	p.SetParamsSize(parser.MaxParamsSize)
	p.SetDataSize(oscDataSize)
	return p
}}

func (s *Screen) takeParser() {
	s.parser = parsers.Get().(*ansi.Parser)
	s.parser.Reset()
	if s.handler == nil {
		s.handler = &ansi.Handler{
			Print:     s.print,
			Execute:   s.execute,
			HandleCsi: s.csi,
			HandleEsc: s.esc,
			HandleOsc: s.osc,
			// The other strings draw nothing, but are not characters.
			HandleDcs: func(ansi.Cmd, ansi.Params, []byte) { s.lastChar = 0 },
			HandleSos: s.endString,
			HandlePm:  s.endString,
			HandleApc: s.endString,
		}
	}
	s.parser.SetHandler(*s.handler)
}

// endString ends an SOS, PM or APC string, which draws nothing: REP after
// it repeats nothing (csi).
func (s *Screen) endString([]byte) { s.lastChar = 0 }

// releaseParser gives the parser back if it is between sequences, where a
// fresh one reads the rest of the output exactly as it would.
func (s *Screen) releaseParser() {
	if s.parser == nil || s.parser.State() != parser.GroundState {
		return
	}
	s.parser.SetHandler(ansi.Handler{}) // so the pool does not keep this screen alive
	parsers.Put(s.parser)
	s.parser = nil
}

// parserState is the parser's state; a screen without one is in the
// ground state.
func (s *Screen) parserState() parser.State {
	if s.parser == nil {
		return parser.GroundState
	}
	return s.parser.State()
}

// inGround reports whether the parser is between sequences.
func (s *Screen) inGround() bool { return s.parserState() == parser.GroundState }

// Resize changes the screen size. The primary screen keeps every line and
// reflows soft-wrapped ones to the new width, its cursor (or, while the
// alternate screen is active, its saved cursor) staying on the same
// character: see reflow. The alternate screen is cut or extended in place,
// its content at the top left, and the cursor clamped. The scroll region is
// reset, as xterm does.
func (s *Screen) Resize(cols, rows int) {
	cols, rows = clampSize(cols, rows)
	if cols == s.cols && rows == s.rows {
		return
	}
	// Reflow copies cells to new lines: a cluster still open for growing
	// in place must not be grown through a cell of the old ones.
	s.clusters.close()
	autowrap := s.modes.has(modeAutowrap)
	// Without autowrap the cursor is on the last column, not past it:
	// its flag is not carried through the reflow.
	cur := cursorPos{x: s.x, y: s.y, pending: s.pendingWrap && autowrap}
	saved := &s.primary.saved
	sp := cursorPos{x: saved.x, y: saved.y, pending: saved.pendingWrap}
	switch {
	case !s.onAlt && saved.valid:
		s.primary.reflow(s.cols, cols, rows, autowrap, []*cursorPos{&cur, &sp})
	case !s.onAlt:
		s.primary.reflow(s.cols, cols, rows, autowrap, []*cursorPos{&cur})
	case saved.valid:
		// Back on the primary screen the application gets its saved cursor
		// (1049): that is the one to keep on its character.
		s.primary.reflow(s.cols, cols, rows, autowrap, []*cursorPos{&sp})
	default:
		// 1047 or 47: the cursor it will come back with is this one, but
		// it moves on the alternate screen, whose resize places it.
		c := cur
		s.primary.reflow(s.cols, cols, rows, autowrap, []*cursorPos{&c})
	}
	if saved.valid {
		saved.x, saved.y, saved.pendingWrap = sp.x, sp.y, sp.pending
	} else {
		saved.x, saved.y = min(saved.x, cols-1), min(saved.y, rows-1)
	}
	if s.onAlt {
		s.alt.resize(s.cols, cols, rows)
		if cur.pending && cur.x < cols-1 {
			// The cursor was logically past the last column.
			cur.x++
		}
		cur = cursorPos{x: min(cur.x, cols-1), y: min(cur.y, rows-1)}
		s.alt.saved.x, s.alt.saved.y = min(s.alt.saved.x, cols-1), min(s.alt.saved.y, rows-1)
	} else if s.alt != nil {
		s.alt.resize(s.cols, cols, rows)
		s.alt.saved.x, s.alt.saved.y = min(s.alt.saved.x, cols-1), min(s.alt.saved.y, rows-1)
	}
	s.x, s.y, s.pendingWrap, s.joining = cur.x, cur.y, cur.pending, false

	old := len(s.tabs)
	switch {
	case s.sharedTabs():
		s.tabs = defaultTabs[:cols:cols]
	case cols <= cap(s.tabs):
		s.tabs = s.tabs[:cols]
	default:
		tabs := make([]bool, cols)
		copy(tabs, s.tabs)
		s.tabs = tabs
	}
	if cols > old && !s.sharedTabs() {
		// New columns get the power-on stops.
		copy(s.tabs[old:], defaultTabs[old:cols])
	}
	s.cols, s.rows = cols, rows
	s.top, s.bottom = 0, rows
}

// SetReply sets the function that receives the answers to queries the
// application sends (DA1, DA2, CPR, DSR). It is called synchronously from
// Write; p is only valid during the call.
func (s *Screen) SetReply(f func(p []byte)) { s.reply = f }

func (s *Screen) sendReply(b []byte) {
	if s.reply != nil {
		s.reply(b)
	}
}

// replyWith sends a copy of b, so the receiver cannot change the constant.
func (s *Screen) replyWith(b []byte) {
	if s.reply != nil {
		s.replyBuf = append(s.replyBuf[:0], b...)
		s.reply(s.replyBuf)
	}
}
