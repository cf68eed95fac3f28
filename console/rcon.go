package console

import "fmt"

// The reference's rcon login rule (net.md A3.5), kept apart from the
// messages that carry it: the server applies the Login it returns to the
// client (its authentication, the lines it sends, the ban or drop).

// Login is the outcome of one rcon login attempt.
type Login struct {
	// Granted is true when the password was right: full access.
	Granted bool
	// Reply is the line to send the client ("" for none).
	Reply string
	// Tries is the client's count of wrong passwords after this attempt.
	Tries int
	// Exhausted is true when Tries reached the limit: the server bans
	// the address (or drops the client when there is no ban time).
	Exhausted bool
}

// Texts of the rcon login, as the reference sends them.
const (
	// LoginNoPassword is sent once to a client trying to log in when no
	// rcon password is set.
	LoginNoPassword = "No rcon password set on server. Set sv_rcon_password and/or sv_rcon_mod_password to enable the remote console."
	// LoginGranted is sent on a right password.
	LoginGranted = "Admin authentication successful. Full remote console access granted."
	// LoginTooManyTries is the ban or drop reason when the tries are used up.
	LoginTooManyTries = "Too many remote console authentication tries"
)

// CheckLogin is the rule for one login attempt of a client not logged in:
// password is the server's rcon password (set), given the client's,
// tries its wrong passwords so far and maxTries the limit (0: none).
func CheckLogin(password, given string, tries, maxTries int) Login {
	if given == password {
		return Login{Granted: true, Reply: LoginGranted, Tries: tries}
	}
	tries++
	if maxTries <= 0 {
		return Login{Reply: "Wrong password.", Tries: tries}
	}
	return Login{Reply: fmt.Sprintf("Wrong password %d/%d.", tries, maxTries), Tries: tries, Exhausted: tries >= maxTries}
}
