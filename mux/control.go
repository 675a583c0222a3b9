package mux

import (
	"net"
	"sort"

	"wr/screen"
	"wr/wire"
)

func (s *Server) handleNew(conn *net.UnixConn, req wire.New) {
	ss, _, werr := s.getOrCreate(req.Name, true, true, req.Config)
	if werr != nil {
		s.reply(conn, wire.TypeError, *werr)
		return
	}
	ss.run()
	s.reply(conn, wire.TypeOK, wire.OK{Names: []string{req.Name}})
}

func (s *Server) handleList(conn net.Conn) {
	s.mu.Lock()
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	infos := make([]wire.SessionInfo, 0, len(all))
	for _, ss := range all {
		infos = append(infos, ss.info())
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name })
	s.reply(conn, wire.TypeSessions, wire.Sessions{Sessions: infos})
}

// lookup finds a session or answers the request with an error.
func (s *Server) lookup(conn net.Conn, name string) *session {
	if err := wire.CheckName(name); err != nil {
		s.replyErr(conn, wire.CodeBadName, "%v", err)
		return nil
	}
	s.mu.Lock()
	ss := s.sessions[name]
	s.mu.Unlock()
	if ss == nil {
		s.replyErr(conn, wire.CodeNoSession, "no session named %s", name)
	}
	return ss
}

func (s *Server) handleSend(conn *net.UnixConn, req wire.Send) {
	ss := s.lookup(conn, req.Name)
	if ss == nil {
		return
	}
	if err := ss.writePTY(req.Data); err != nil {
		s.replyErr(conn, wire.CodeNoSession, "%v", err)
		return
	}
	s.reply(conn, wire.TypeOK, wire.OK{Names: []string{req.Name}})
}

func (s *Server) handleCapture(conn *net.UnixConn, req wire.Capture) {
	ss := s.lookup(conn, req.Name)
	if ss == nil {
		return
	}
	// reply turns a screen too large for one frame into an error reply.
	s.reply(conn, wire.TypeScreen, wire.Screen{Text: ss.capture(screen.TextOptions{ANSI: req.ANSI, Scrollback: req.Scrollback})})
}

func (s *Server) handleWait(conn *net.UnixConn, req wire.Wait) {
	ss := s.lookup(conn, req.Name)
	if ss == nil {
		return
	}
	<-ss.done
	s.reply(conn, wire.TypeExited, wire.Exited{Code: ss.code})
}

func (s *Server) handleKill(conn *net.UnixConn, req wire.Kill) {
	var targets []*session
	s.mu.Lock()
	if req.All {
		for _, ss := range s.sessions {
			targets = append(targets, ss)
		}
	} else {
		for _, name := range req.Names {
			ss := s.sessions[name]
			if ss == nil {
				s.mu.Unlock()
				if err := wire.CheckName(name); err != nil {
					s.replyErr(conn, wire.CodeBadName, "%v", err)
				} else {
					s.replyErr(conn, wire.CodeNoSession, "no session named %s", name)
				}
				return
			}
			targets = append(targets, ss)
		}
	}
	s.mu.Unlock()
	names := s.killSessions(targets)
	s.reply(conn, wire.TypeOK, wire.OK{Names: names})
}

func (s *Server) handleStop(conn net.Conn) {
	s.mu.Lock()
	s.draining = true // no new sessions from here on
	targets := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		targets = append(targets, ss)
	}
	s.mu.Unlock()
	names := s.killSessions(targets)
	s.reply(conn, wire.TypeOK, wire.OK{Names: names})
	s.shutdown()
}
