package main

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"wr/attach"
)

// The read's error after ErrUpgradeLost is said; errors.Unwrap gave nil
// for the two wrapped side by side, and the message ended in "<nil>".
func TestUpgradeLostSaysWhy(t *testing.T) {
	err := upgradeFailed("/s", fmt.Errorf("%w: %w", attach.ErrUpgradeLost, io.EOF))
	if msg := err.Error(); strings.Contains(msg, "<nil>") || !strings.HasSuffix(msg, ": EOF") {
		t.Fatalf("upgradeFailed says %q", msg)
	}
}
