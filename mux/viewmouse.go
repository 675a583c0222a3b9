package mux

import (
	"bytes"
	"strconv"
)

// viewMouse moves the wheel and motion reports in b (a passive run: SGR
// `CSI < b;x;y M`, urxvt `CSI b;x;y M` or X10 `CSI M bxy`, one after
// another) from a drawn client's terminal to the screen: a terminal drawn
// at another size shows the screen from (dx, dy), so its cell (x, y) is the
// screen's (x+dx, y+dy). A report outside the cols x rows screen (a larger
// terminal's blank edge) is dropped: the program has nothing there. What
// is not a report it can read is passed on as it is.
func viewMouse(dst, b []byte, dx, dy, cols, rows int) []byte {
	for len(b) > 0 {
		i := bytes.Index(b[1:], []byte("\x1b["))
		if i < 0 {
			i = len(b)
		} else {
			i++
		}
		dst = moveReport(dst, b[:i], dx, dy, cols, rows)
		b = b[i:]
	}
	return dst
}

// moveReport moves one report (viewMouse).
func moveReport(dst, r []byte, dx, dy, cols, rows int) []byte {
	if len(r) == 6 && r[0] == 0x1b && r[1] == '[' && r[2] == 'M' {
		// X10: the coordinates are bytes, 32 plus the 1-based cell.
		x, y := int(r[4])-32+dx, int(r[5])-32+dy
		if x < 1 || y < 1 || x > cols || y > rows {
			return dst
		}
		if x+32 > 0xff || y+32 > 0xff {
			return append(dst, r...) // not expressible: as it came
		}
		return append(dst, 0x1b, '[', 'M', r[3], byte(x+32), byte(y+32))
	}
	if len(r) < 4 || r[0] != 0x1b || r[1] != '[' || (r[len(r)-1] != 'M' && r[len(r)-1] != 'm') {
		return append(dst, r...)
	}
	body := r[2 : len(r)-1]
	prefix := []byte(nil)
	if len(body) > 0 && body[0] == '<' {
		prefix, body = body[:1], body[1:]
	}
	f := bytes.Split(body, []byte(";"))
	if len(f) != 3 {
		return append(dst, r...)
	}
	x, errX := strconv.Atoi(string(f[1]))
	y, errY := strconv.Atoi(string(f[2]))
	if errX != nil || errY != nil {
		return append(dst, r...)
	}
	x, y = x+dx, y+dy
	if x < 1 || y < 1 || x > cols || y > rows {
		return dst
	}
	dst = append(dst, 0x1b, '[')
	dst = append(dst, prefix...)
	dst = append(dst, f[0]...)
	dst = append(dst, ';')
	dst = strconv.AppendInt(dst, int64(x), 10)
	dst = append(dst, ';')
	dst = strconv.AppendInt(dst, int64(y), 10)
	return append(dst, r[len(r)-1])
}
