//go:build !race

package ptyproc_test

const raceEnabled = false
