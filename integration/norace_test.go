//go:build !race && linux

package integration

const raceEnabled = false
