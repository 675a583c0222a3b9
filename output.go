package main

import (
	"fmt"
	"io"
	"os"
)

// stdout is where verbs print what they were asked for (ls, env, names,
// status, completion, help). It keeps the first write error: a listing
// written to a full disk (`wr ls --json > file`) or a closed descriptor
// exited 0 with nothing written, and a script went on with an empty file.
// run turns it into exit 1 with one line on stderr.
var stdout = &checkedWriter{w: os.Stdout}

// checkedWriter is a writer that remembers its first error.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// outputFailed is the error for a command that succeeded but could not
// write its output, or nil.
func outputFailed() error {
	if stdout.err == nil {
		return nil
	}
	return fmt.Errorf("cannot write the output: %w", stdout.err)
}
