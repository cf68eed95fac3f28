package console

import "testing"

// TestCheckLogin: the reference's rcon login rule: a right password grants
// access, a wrong one counts a try and, with a limit, says how many are
// left and reports when they are used up.
func TestCheckLogin(t *testing.T) {
	for _, tt := range []struct {
		given           string
		tries, maxTries int
		want            Login
	}{
		{"pw", 2, 3, Login{Granted: true, Reply: LoginGranted, Tries: 2}},
		{"PW", 0, 0, Login{Reply: "Wrong password.", Tries: 1}},
		{"", 0, 3, Login{Reply: "Wrong password 1/3.", Tries: 1}},
		{"x", 2, 3, Login{Reply: "Wrong password 3/3.", Tries: 3, Exhausted: true}},
		{"x", 5, 3, Login{Reply: "Wrong password 6/3.", Tries: 6, Exhausted: true}},
	} {
		if got := CheckLogin("pw", tt.given, tt.tries, tt.maxTries); got != tt.want {
			t.Errorf("CheckLogin(%q, %d, %d) = %+v, want %+v", tt.given, tt.tries, tt.maxTries, got, tt.want)
		}
	}
}
