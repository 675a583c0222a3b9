package mux

import "bytes"

// queryScan finds the queries in a program's output (queries.go), read in
// chunks that may split one anywhere. It follows only what a query can be:
// a CSI, an OSC of a kind that can ask, a DCS; any other string's body is
// skipped to its end. A query is counted where it ends, which is before the
// chunk that holds its end is sent, so no answer can come back first.
type queryScan struct {
	state  scanState
	prefix byte // a CSI's private marker
	inter  byte // a CSI's or a DCS's last intermediate
	ps     int  // a CSI's first parameter or an OSC's number; -1 for none yet
	more   bool // a CSI has parameters after its first
	bad    bool // a CSI out of order (a marker after a parameter, a parameter after an intermediate): terminals ignore it
	field  byte // an OSC field so far: 0 empty, '?' exactly "?", 'x' anything else
	fields int  // the OSC fields before this one
	dcs    [2]byte
	dcsLen int

	// asked is the queries of the string being read, counted when its ST
	// (or an OSC's BEL) ends it: a string cut short by another ESC or by
	// CAN is not answered.
	asked []queryKind

	found []queryKind // the queries of the last chunk, in order
}

type scanState uint8

const (
	scanGround    scanState = iota
	scanESC                 // after ESC
	scanCSI                 // in a CSI, after ESC [
	scanOSCNumber           // after ESC ], reading Ps
	scanOSCBody             // in an OSC that may ask, after Ps;
	scanDCSHead             // after ESC P, reading what could be $q
	scanDCSQuery            // in a DECRQSS's body
	scanQueryESC            // after an ESC in a string that asks: its ST, or not
	scanString              // in a string that asks nothing: skipped to its end
)

// The largest parameter kept: every query's is smaller.
const maxScanParam = 10000

// maxStringAsks caps the queries one string is counted for (OSC 4 asks
// for as many colours as it lists).
const maxStringAsks = 64

// scan returns the queries chunk ends, in order; the slice is valid until
// the next call.
func (q *queryScan) scan(chunk []byte) []queryKind {
	q.found = q.found[:0]
	for len(chunk) > 0 {
		switch q.state {
		case scanGround:
			i := bytes.IndexByte(chunk, 0x1b)
			if i < 0 {
				return q.found
			}
			q.state, chunk = scanESC, chunk[i+1:]
			// Most escapes in output are SGR and cursor moves, whole in
			// the chunk: passed over in one loop when their final byte
			// ends no query.
			if n := plainCSI(chunk); n > 0 {
				q.state, chunk = scanGround, chunk[n:]
			}
			continue
		case scanString, scanDCSQuery:
			// Skipped to an ESC (its ST's, or a new sequence's), or a byte
			// that ends or cancels it: BEL ends an OSC (a DCS's is part
			// of it), CAN and SUB cancel any string.
			stops := "\x1b\x07\x18\x1a"
			if q.state == scanDCSQuery {
				stops = "\x1b\x18\x1a"
			}
			i := bytes.IndexAny(chunk, stops)
			if i < 0 {
				return q.found
			}
			q.step(chunk[i])
			chunk = chunk[i+1:]
			continue
		}
		q.step(chunk[0])
		chunk = chunk[1:]
	}
	return q.found
}

// step advances over one byte of a sequence.
func (q *queryScan) step(b byte) {
	if b == 0x18 || b == 0x1a { // CAN and SUB cancel any sequence
		q.state = scanGround
		return
	}
	switch q.state {
	case scanESC:
		q.prefix, q.inter, q.ps, q.more, q.bad = 0, 0, -1, false, false
		switch b {
		case '[':
			q.state = scanCSI
		case ']':
			q.state = scanOSCNumber
		case 'P':
			q.state, q.dcsLen = scanDCSHead, 0
		case 'X', '^', '_':
			q.state = scanString
		case 0x1b:
		default:
			q.state = scanGround
		}
	case scanCSI:
		switch {
		case b >= '0' && b <= '9' || b == ';' || b == ':':
			if q.inter != 0 {
				q.bad = true
			}
			if b == ';' || b == ':' {
				q.more = true
			} else if !q.more {
				q.ps = min(max(q.ps, 0)*10+int(b-'0'), maxScanParam)
			}
		case b >= '<' && b <= '?':
			if q.ps >= 0 || q.more || q.prefix != 0 || q.inter != 0 {
				q.bad = true
			}
			q.prefix = b
		case b >= 0x20 && b <= 0x2f:
			q.inter = b
		case b >= 0x40 && b <= 0x7e:
			if k := q.csiQuery(b); k != 0 && !q.bad {
				q.found = append(q.found, k)
			}
			q.state = scanGround
		case b == 0x1b:
			q.state = scanESC
		case b >= 0x80:
			q.state = scanGround
		}
	case scanOSCNumber:
		switch {
		case b >= '0' && b <= '9':
			q.ps = min(max(q.ps, 0)*10+int(b-'0'), maxScanParam)
		case b == ';' && q.ps >= 0 && oscQuery(q.ps) != 0:
			q.state, q.field, q.fields, q.asked = scanOSCBody, 0, 0, q.asked[:0]
		case b == 0x1b:
			q.state = scanESC
		case b == 0x07:
			q.state = scanGround
		default:
			q.state = scanString
		}
	case scanOSCBody:
		switch b {
		case ';', 0x07, 0x1b:
			if k := q.oscField(); q.field == '?' && k != 0 && len(q.asked) < maxStringAsks {
				q.asked = append(q.asked, k)
			}
			q.field = 0
			q.fields++
			switch b {
			case 0x07:
				q.found = append(q.found, q.asked...)
				q.state = scanGround
			case 0x1b:
				q.state = scanQueryESC
			}
		case '?':
			if q.field == 0 {
				q.field = '?'
			} else {
				q.field = 'x'
			}
		default:
			q.field = 'x'
		}
	case scanDCSHead:
		if b == 0x1b {
			q.state = scanESC
			return
		}
		q.dcs[q.dcsLen] = b
		q.dcsLen++
		if q.dcsLen == 2 {
			q.state = scanString
			if q.dcs == [2]byte{'$', 'q'} {
				q.state, q.asked = scanDCSQuery, append(q.asked[:0], querySetting)
			}
		}
	case scanDCSQuery:
		if b == 0x1b {
			q.state = scanQueryESC
		}
	case scanQueryESC:
		if b == '\\' {
			q.found = append(q.found, q.asked...)
			q.state = scanGround
			return
		}
		// Not an ST: the string was cut short, and ESC starts another.
		q.state = scanESC
		q.step(b)
	case scanString:
		// Only ESC, BEL, CAN and SUB reach here (scan skips the rest).
		q.state = scanGround
		if b == 0x1b {
			q.state = scanESC
		}
	}
}

// oscField is the kind of query an OSC field of "?" is: for the dynamic
// colours (10 to 19) each field after the first is the next colour's
// (OSC 10;?;? asks for the foreground and the background, and is answered
// with an OSC 10 and an OSC 11); OSC 4 and 5 list index and colour pairs,
// each answered with its own OSC 4 or 5; OSC 52's is its second field (the
// first names the selection).
func (q *queryScan) oscField() queryKind {
	switch {
	case q.ps >= 10 && q.ps <= 19:
		if q.ps+q.fields > 19 {
			return 0
		}
		return oscQuery(q.ps + q.fields)
	case (q.ps == 4 || q.ps == 5) && q.fields%2 == 0, q.ps == 52 && q.fields != 1:
		return 0 // an index or a selection, not a colour or its contents
	}
	return oscQuery(q.ps)
}

// plainCSI is the length of the CSI that b starts with (after its ESC) if
// it is whole in b and its final byte is one no query ends with, or 0.
func plainCSI(b []byte) int {
	if len(b) < 2 || b[0] != '[' {
		return 0
	}
	for i := 1; i < len(b); i++ {
		switch ch := b[i]; {
		case ch >= 0x20 && ch <= 0x3f:
		case ch >= 0x40 && ch <= 0x7e:
			switch ch {
			case 'n', 'c', 'p', 't', 'u', 'q':
				return 0
			}
			return i + 1
		default:
			return 0
		}
	}
	return 0
}

// csiQuery is the kind of query a CSI ending in final is, or 0.
func (q *queryScan) csiQuery(final byte) queryKind {
	first := q.ps <= 0 && !q.more // no parameter, or a lone 0
	switch {
	case final == 'n' && q.inter == 0:
		switch {
		case q.ps == 6 && (q.prefix == 0 || q.prefix == '?') && !q.more:
			return queryCursor
		case q.ps == 5 && q.prefix == 0 && !q.more:
			return queryStatus
		case q.ps == 996 && q.prefix == '?' && !q.more:
			return queryTheme
		}
	case final == 'c' && q.inter == 0 && first:
		switch q.prefix {
		case 0:
			return queryDA1
		case '>':
			return queryDA2
		case '=':
			return queryDA3
		}
	case final == 'p' && q.inter == '$' && (q.prefix == 0 || q.prefix == '?') && q.ps >= 0:
		return queryMode
	case final == 't' && q.inter == 0 && q.prefix == 0:
		return windowQuery(q.ps)
	case final == 'u' && q.inter == 0 && q.prefix == '?' && q.ps < 0:
		return queryKitty
	case final == 'q' && q.inter == 0 && q.prefix == '>' && first:
		return queryVersion
	}
	return 0
}
