package teehist

import "twserver/netproto"

// AppendMessage appends the encoding of one message as it is (no tick
// rules, no diffing): the inverse of Reader.Next for tools that copy or
// filter files.
func AppendMessage(b []byte, m *Message) []byte {
	i := func(v ...int32) {
		for _, x := range v {
			b = netproto.AppendInt(b, x)
		}
	}
	s := func(v string) {
		b = append(b, v...)
		b = append(b, 0)
	}
	switch m.Kind {
	case KindPlayerDiff:
		i(m.CID, m.X, m.Y)
	case KindFinish:
		i(int32(KindFinish))
	case KindTickSkip:
		i(int32(KindTickSkip), m.DT)
	case KindPlayerNew:
		i(int32(KindPlayerNew), m.CID, m.X, m.Y)
	case KindPlayerOld:
		i(int32(KindPlayerOld), m.CID)
	case KindInputDiff, KindInputNew:
		i(int32(m.Kind), m.CID)
		i(m.Input[:]...)
	case KindMessage:
		i(int32(KindMessage), m.CID, int32(len(m.Data)))
		b = append(b, m.Data...)
	case KindJoin:
		i(int32(KindJoin), m.CID)
	case KindDrop:
		i(int32(KindDrop), m.CID)
		s(m.Reason)
	case KindConsoleCommand:
		i(int32(KindConsoleCommand), m.CID, m.Flags)
		s(m.Cmd)
		i(int32(len(m.Args)))
		for _, a := range m.Args {
			s(a)
		}
	case KindEx:
		i(int32(KindEx))
		b = append(b, m.UUID[:]...)
		i(int32(len(m.Data)))
		b = append(b, m.Data...)
	}
	return b
}
