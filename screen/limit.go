package screen

// ScrollbackLimit is the most lines the scrollback keeps: what New was
// given, once defaulted and capped. A copy of the screen made elsewhere
// (a server upgrade) is made with it.
func (s *Screen) ScrollbackLimit() int { return s.primary.maxHistory }
