package wire

// The sentinels only wire returns and only its external tests check.
var (
	ErrNotSocket = errNotSocket
	ErrBlocking  = errBlocking
	ErrNoProc    = errNoProc
)
