package attach

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestCastKeepsCharactersWhole(t *testing.T) {
	var buf bytes.Buffer
	c, err := NewCast(&buf, 80, 24, map[string]string{"TERM": "xterm"}, "work")
	if err != nil {
		t.Fatal(err)
	}
	euro := []byte("€") // three bytes
	c.Output(append([]byte("a"), euro[:1]...))
	c.Output(euro[1:2])
	c.Output(append(euro[2:], 'b'))
	c.Resize(100, 30)
	c.Output([]byte{0xff}) // not UTF-8: recorded at once, replaced
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	var h castHeader
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil || h.Version != 2 || h.Width != 80 || h.Height != 24 {
		t.Fatalf("header %q: %+v, %v", lines[0], h, err)
	}
	var text strings.Builder
	var kinds []string
	for _, l := range lines[1:] {
		var ev []any
		if err := json.Unmarshal([]byte(l), &ev); err != nil || len(ev) != 3 {
			t.Fatalf("event %q: %v", l, err)
		}
		kinds = append(kinds, ev[1].(string))
		if ev[1] == "o" {
			text.WriteString(ev[2].(string))
		} else if ev[2] != "100x30" {
			t.Errorf("resize event %q", l)
		}
	}
	if got := text.String(); got != "a€b\uFFFD" {
		t.Errorf("output %q, want %q", got, "a€b\uFFFD")
	}
	if strings.Join(kinds, "") != "ooro" {
		t.Errorf("events %v", kinds)
	}
}
