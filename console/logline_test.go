package console

import (
	"strings"
	"testing"
)

// TestLogLine: the values of password settings are hidden in every
// command of a line, quoted or not, in any case; other lines stay as
// they are.
func TestLogLine(t *testing.T) {
	for line, want := range map[string]string{
		`sv_rcon_password "hunter2"`:                  `sv_rcon_password (set)`,
		`SV_RCON_PASSWORD hunter2`:                    `SV_RCON_PASSWORD (set)`,
		`say hi; ec_password "a;b"; kick 1`:           `say hi; ec_password (set); kick 1`,
		`password x # hunter2`:                        `password (set)`,
		`  password   x y`:                            `password (set)`,
		`sv_rcon_password`:                            `sv_rcon_password`, // asks the value: nothing to hide
		`say "my password is hunter2"`:                `say "my password is hunter2"`,
		`ban 10.0.0.1 60 "reason"`:                    `ban 10.0.0.1 60 "reason"`,
		`sv_name "x"; say "password ; hunter2"`:       `sv_name "x"; say "password ; hunter2"`,
		`say "\"; sv_rcon_password hunter2 \""`:       `say "\"; sv_rcon_password hunter2 \""`,
		`broadcast "a"; sv_rcon_password "h\"unter2"`: `broadcast "a"; sv_rcon_password (set)`,
	} {
		if got := LogLine(line); got != want {
			t.Errorf("LogLine(%q) = %q, want %q", line, got, want)
		}
	}
}

// FuzzLogLine: any line is masked without a panic; a changed line has
// "(set)" in it, and masking twice changes nothing more.
func FuzzLogLine(f *testing.F) {
	for _, s := range []string{`sv_rcon_password "x"`, `say "a;b"; password y # z`, `"unclosed; ec_password`, `\"; password \\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		m := LogLine(line)
		if m != line && !strings.Contains(m, "(set)") {
			t.Fatalf("LogLine(%q) = %q", line, m)
		}
		if mm := LogLine(m); mm != m {
			t.Fatalf("LogLine(%q) = %q, again %q", line, m, mm)
		}
	})
}
