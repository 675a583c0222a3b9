//go:build race

package integration

// raceEnabled: the suite was built with -race, so wr is built with it too.
const raceEnabled = true
