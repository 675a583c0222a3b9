package ptyproc

// ExitCode is exitCode, for the external tests.
var ExitCode = exitCode
