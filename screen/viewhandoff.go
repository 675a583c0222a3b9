package screen

// ViewAt returns the view of a terminal of cols x rows that already shows
// this screen through a viewport whose top left was at (x, y): the view an
// update would have left. It is for a terminal whose view was kept
// elsewhere (a drawn client a server upgrade handed over, whose old view
// was up to date), so that its next update sends only what changes from
// here, not a whole drawing.
func (s *Screen) ViewAt(cols, rows, x, y int) *View {
	v := NewView(cols, rows)
	v.ox, v.oy = x, y
	s.AppendViewUpdate(nil, v)
	// What an older server never sent a drawn terminal (keyboard flags,
	// modifyOtherKeys, the title) is sent at the next update, unless it is
	// the terminal's default.
	v.kitty, v.otherKeys, v.titleKnown = 0, 0, false
	return v
}
