package attach

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"wr/wire"
)

// Cast writes an asciicast v2 recording (what `asciinema play` replays): a
// header line with the size, then one JSON array per event, [seconds,
// "o", text] for output and [seconds, "r", "COLSxROWS"] for a resize, the
// seconds counted from the header. Its methods may be called from several
// goroutines (the output from the relay's reader, a resize from its signal
// loop). The first write error sticks and is returned by every later call.
type Cast struct {
	mu    sync.Mutex
	w     *bufio.Writer
	start time.Time
	// tail is the start of a UTF-8 sequence cut at the end of the last
	// output, held for the next: a JSON string holds whole characters.
	tail []byte
	err  error
}

// castHeader is the first line of a recording.
type castHeader struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp"`
	Env       map[string]string `json:"env,omitempty"`
	Title     string            `json:"title,omitempty"`
}

// NewCast starts a recording of a terminal of cols x rows on w, writing
// its header (env: TERM and SHELL, as asciinema records them; title: the
// session's name).
func NewCast(w io.Writer, cols, rows int, env map[string]string, title string) (*Cast, error) {
	c := &Cast{w: bufio.NewWriterSize(w, 64<<10), start: time.Now()}
	h, err := json.Marshal(castHeader{Version: 2, Width: cols, Height: rows, Timestamp: c.start.Unix(), Env: env, Title: title})
	if err != nil {
		return nil, err
	}
	c.w.Write(h)
	c.w.WriteByte('\n')
	if err := c.w.Flush(); err != nil {
		return nil, err
	}
	return c, nil
}

// Output records p as written to the terminal now.
func (c *Cast) Output(p []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.tail) > 0 {
		p = append(c.tail, p...)
		c.tail = nil
	}
	if cut := incompleteTail(p); cut > 0 {
		c.tail = append([]byte(nil), p[len(p)-cut:]...)
		p = p[:len(p)-cut]
	}
	if len(p) == 0 {
		return c.err
	}
	return c.eventLocked("o", string(p))
}

// Resize records that the terminal is now cols x rows.
func (c *Cast) Resize(cols, rows int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.eventLocked("r", fmt.Sprintf("%dx%d", cols, rows))
}

// Close records a held partial character as it is and flushes.
func (c *Cast) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.tail) > 0 {
		c.eventLocked("o", string(c.tail))
		c.tail = nil
	}
	return c.err
}

func (c *Cast) eventLocked(kind, data string) error {
	if c.err != nil {
		return c.err
	}
	text, err := json.Marshal(data)
	if err != nil {
		c.err = err
		return err
	}
	b := c.w.AvailableBuffer()
	b = append(b, '[')
	b = strconv.AppendFloat(b, time.Since(c.start).Seconds(), 'f', 6, 64)
	b = append(b, `, "`...)
	b = append(b, kind...)
	b = append(b, `", `...)
	b = append(b, text...)
	b = append(b, "]\n"...)
	if _, err := c.w.Write(b); err != nil {
		c.err = err
		return err
	}
	// Every event reaches the file as it happens: a recording cut short
	// (the machine went down) keeps what came before.
	c.err = c.w.Flush()
	return c.err
}

// incompleteTail is how many bytes at the end of p start a UTF-8 sequence
// that is not complete yet (0 when p ends on a whole character or with
// bytes that are not UTF-8 at all, which no later byte would mend).
func incompleteTail(p []byte) int {
	for n := 1; n <= 3 && n <= len(p); n++ {
		b := p[len(p)-n]
		if b < 0x80 {
			return 0
		}
		if utf8.RuneStart(b) {
			if !utf8.FullRune(p[len(p)-n:]) {
				return n
			}
			return 0
		}
	}
	return 0
}

// startCast starts the recording of an attach: at the terminal's size, or
// the session's for a client with no terminal (which is sent the
// program's bytes as they come).
func startCast(w io.Writer, req wire.Attach, acc wire.Attached) (*Cast, error) {
	cols, rows := req.Cols, req.Rows
	if cols <= 0 || rows <= 0 {
		cols, rows = acc.Cols, acc.Rows
	}
	c, err := NewCast(w, cols, rows, CastEnv(req.Config.Env), acc.Name)
	if err != nil {
		return nil, fmt.Errorf("cannot start the recording: %w", err)
	}
	return c, nil
}

// CastEnv is what a recording's header says of the environment: TERM and
// SHELL, as asciinema records them.
func CastEnv(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "TERM" || k == "SHELL" {
			m[k] = v
		}
	}
	return m
}
