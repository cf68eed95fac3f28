package dialect6

// SizePlayerInput is the number of ints of a PlayerInput object, the same
// in 0.6 and 0.7 (net.md B5.2, A5.3).
const SizePlayerInput = 10

// inputPlayerFlags is the index of player_flags in PlayerInput.
const inputPlayerFlags = 6

// InputTo7 rewrites, in place, the PlayerInput object of a 0.6 client's
// INPUT message into the 0.7 form the world reads: the layout is the same,
// but the player flags differ (0.6 PLAYING 1, IN_MENU 2, CHATTING 4,
// SCOREBOARD 8, DDNet's AIM 16 and more; 0.7 CHATTING 2, SCOREBOARD 4).
// CHATTING and SCOREBOARD carry over, every other bit is dropped (a 0.6
// PLAYING read as 0.7 would be ADMIN). Inputs shorter than a PlayerInput are
// left alone for the world's own size check to refuse.
func InputTo7(in []int32) {
	if len(in) < SizePlayerInput {
		return
	}
	f6 := in[inputPlayerFlags]
	var f7 int32
	if f6&PlayerFlagChatting != 0 {
		f7 |= playerFlag7Chatting
	}
	if f6&PlayerFlagScoreboard != 0 {
		f7 |= playerFlag7Scoreboard
	}
	in[inputPlayerFlags] = f7
}
