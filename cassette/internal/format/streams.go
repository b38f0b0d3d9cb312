package format

// StreamLines indexes the lines of one HTTP stream.
type StreamLines struct {
	Req, Resp, Close int // -1 when absent
	Events           []int
}

// Lines returns the stream's lines after its request, in order: the
// response, the events, the close.
func (sl *StreamLines) Lines() []int {
	out := make([]int, 0, len(sl.Events)+2)
	if sl.Resp >= 0 {
		out = append(out, sl.Resp)
	}
	out = append(out, sl.Events...)
	if sl.Close >= 0 {
		out = append(out, sl.Close)
	}
	return out
}

// StreamIndex indexes the HTTP lines of ins by stream.
func StreamIndex(ins []Interaction) map[int]*StreamLines {
	idx := map[int]*StreamLines{}
	for i := range ins {
		in := &ins[i]
		if in.HTTP == nil {
			continue
		}
		s := idx[in.HTTP.Stream]
		switch in.Kind {
		case KindRequest:
			idx[in.HTTP.Stream] = &StreamLines{Req: i, Resp: -1, Close: -1}
		case KindResponse:
			s.Resp = i
		case KindEvent:
			s.Events = append(s.Events, i)
		case KindClose:
			s.Close = i
		}
	}
	return idx
}

// First returns the stream's first line after its request: its response,
// else its close.
func (sl *StreamLines) First() int {
	if sl.Resp < 0 {
		return sl.Close
	}
	return sl.Resp
}
