package screen

// The state the tests read that no other package needs: the screen's users
// get what it shows through AppendRestore and AppendText.

// size returns the screen size.
func (s *Screen) size() (cols, rows int) { return s.cols, s.rows }

// windowTitle returns the window title set with OSC 0 or OSC 2.
func (s *Screen) windowTitle() string { return s.title }

// workingDirectory returns the working directory reported with OSC 7 (a
// file:// URL, unvalidated), or "".
func (s *Screen) workingDirectory() string { return s.cwd }

// cursor returns the 0-based cursor position.
func (s *Screen) cursor() (x, y int) { return s.x, s.y }

// cursorVisible reports whether the application shows the cursor (DECTCEM).
func (s *Screen) cursorVisible() bool { return s.modes.has(modeCursorVisible) }

// altScreen reports whether the alternate screen is active.
func (s *Screen) altScreen() bool { return s.onAlt }

// scrollbackLen returns the number of scrollback lines held.
func (s *Screen) scrollbackLen() int { return s.primary.history }
