package dialect6

import (
	"slices"
	"testing"
)

func TestInputTo7(t *testing.T) {
	for _, tc := range []struct{ f6, f7 int32 }{
		{PlayerFlagPlaying, 0},
		{PlayerFlagPlaying | PlayerFlagAim, 0},
		{PlayerFlagInMenu, 0},
		{PlayerFlagChatting, playerFlag7Chatting},
		{PlayerFlagPlaying | PlayerFlagScoreboard, playerFlag7Scoreboard},
		{PlayerFlagChatting | PlayerFlagScoreboard | 0x7fffff00, playerFlag7Chatting | playerFlag7Scoreboard},
		{-1, playerFlag7Chatting | playerFlag7Scoreboard},
	} {
		in := []int32{-1, 100, -50, 1, 7, 1, tc.f6, 3, 2, 4}
		InputTo7(in)
		if want := []int32{-1, 100, -50, 1, 7, 1, tc.f7, 3, 2, 4}; !slices.Equal(in, want) {
			t.Errorf("flags %#x: %v, want %v", tc.f6, in, want)
		}
	}
	short := []int32{1, 2, 3}
	InputTo7(short)
	if !slices.Equal(short, []int32{1, 2, 3}) {
		t.Fatal("short input changed")
	}
}
