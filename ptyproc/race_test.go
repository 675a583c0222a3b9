//go:build race

package ptyproc_test

// raceEnabled: the race detector's instrumentation allocates, so
// allocation counts are not this package's to assert under it.
const raceEnabled = true
