package main

import (
	"bytes"
	"encoding/json"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"twserver/loadclient"
)

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad addr", []string{"-addr", "nowhere"}, "bad -addr"},
		{"bad pattern", []string{"-pattern", "dance"}, "unknown input pattern"},
		{"too many clients", []string{"-n", "65"}, "clients must be"},
		{"zero duration", []string{"-duration", "0s"}, "duration"},
		{"bad source base", []string{"-sources", "4", "-source-base", "x"}, "bad -source-base"},
		{"bad status", []string{"-status", "maybe"}, "-status"},
		{"extra args", []string{"extra"}, "unexpected arguments"},
		{"unknown flag", []string{"-frobnicate"}, "flag provided but not defined"},
		{"not loopback", []string{"-addr", "192.0.2.1:8303"}, "not a loopback address"},
		{"bad loss", []string{"-loss", "5"}, "-loss"},
		{"bad reorder", []string{"-reorder", "x"}, "-reorder"},
		{"bad dup", []string{"-dup", "200%"}, "-dup"},
		{"delay too long", []string{"-delay", "3s"}, "at most"},
		{"bad up key", []string{"-up", "rate=1"}, "-up: unknown key"},
		{"bad down value", []string{"-down", "delay=soon"}, "-down: delay"},
		{"bad blackout", []string{"-blackout", "2s"}, "LENGTH@START"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(tt.args, &out, &errb); code != 2 {
				t.Fatalf("exit %d, want 2 (stderr %q)", code, errb.String())
			}
			if !strings.Contains(errb.String(), tt.want) {
				t.Fatalf("stderr %q does not mention %q", errb.String(), tt.want)
			}
		})
	}
}

// TestNoServer runs against a port where nobody answers: the clients fail,
// the JSON says why and the exit status is 1.
func TestNoServer(t *testing.T) {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close() // bound but silent
	var out, errb bytes.Buffer
	code := run([]string{"-addr", c.LocalAddr().String(), "-n", "2", "-duration", "6s", "-rampup", "0s", "-status", "off"}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, errb.String())
	}
	var sum loadclient.Summary
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatalf("summary is not JSON: %v\n%s", err, out.String())
	}
	if sum.Failed != 2 || sum.Connected != 0 || sum.Failures["no token reply within 5 s"] != 2 {
		t.Fatalf("summary %+v", sum)
	}
}

// TestParseNetem: both-direction flags, then -up/-down on top.
func TestParseNetem(t *testing.T) {
	n, err := parseNetem("10%", 100*time.Millisecond, 50*time.Millisecond, "10%", "1%", "loss=0%", "delay=20ms", "2s@30s")
	if err != nil {
		t.Fatal(err)
	}
	want := loadclient.Netem{
		Up:         loadclient.Impair{Loss: 0, Delay: 100 * time.Millisecond, Jitter: 50 * time.Millisecond, Reorder: 0.1, Dup: 0.01},
		Down:       loadclient.Impair{Loss: 0.1, Delay: 20 * time.Millisecond, Jitter: 50 * time.Millisecond, Reorder: 0.1, Dup: 0.01},
		BlackoutAt: 30 * time.Second, Blackout: 2 * time.Second,
	}
	if !reflect.DeepEqual(*n, want) {
		t.Fatalf("%+v, want %+v", *n, want)
	}
	if n, err := parseNetem("0%", 0, 0, "0%", "0%", "", "", ""); n != nil || err != nil {
		t.Fatalf("no impairment: %+v %v", n, err)
	}
}

// TestHelp: -h of twload and of each subcommand prints the usage and exits
// 0 without running anything.
func TestHelp(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"-h"}, []string{"twload hold [flags]", "twload bench [flags]", "-duration duration"}},
		{[]string{"hold", "-h"}, []string{"-stage"}},
		{[]string{"flood", "-h"}, []string{"-server-pid"}},
		{[]string{"bench", "-h"}, []string{"-scenario"}},
	} {
		var out, errb bytes.Buffer
		if code := run(tt.args, &out, &errb); code != 0 {
			t.Errorf("%q: exit %d, want 0 (stderr %q)", tt.args, code, errb.String())
		}
		for _, w := range tt.want {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("%q: usage %q does not mention %q", tt.args, errb.String(), w)
			}
		}
	}
}
