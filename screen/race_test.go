//go:build race

package screen

// raceEnabled: under the race detector sync.Pool drops a share of what is
// put back, so the pooled parser is sometimes made anew and allocation
// counts are not this package's to assert.
const raceEnabled = true
