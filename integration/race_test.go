//go:build race && linux

package integration

// raceEnabled: the suite was built with -race, so wr is built with it too.
const raceEnabled = true
