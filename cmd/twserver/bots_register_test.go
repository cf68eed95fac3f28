package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"twserver/internal/mastertest"
	"twserver/internal/servertest"
	"twserver/internal/testport"
)

// masterClients returns the client names of the info the master holds for
// the 0.7 address (nil when not listed).
func masterClients(t *testing.T, m *mastertest.Master) (names []string, listed bool) {
	t.Helper()
	for _, e := range m.Servers() {
		var info struct {
			Clients []struct{ Name string }
		}
		if err := json.Unmarshal(e.Info, &info); err != nil {
			t.Fatal(err)
		}
		names = names[:0]
		for _, c := range info.Clients {
			names = append(names, c.Name)
		}
		return names, true
	}
	return nil, false
}

// TestRegisterBotsHidden: the master sees humans only. Two bots added over
// the econ while nobody plays are in the server's 0.7 info (with the bot
// type, the positive control) but not at the master; once a human joins
// (and a fill bot with them) the master lists the human alone.
func TestRegisterBotsHidden(t *testing.T) {
	m, err := mastertest.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var logs lockedBuf
	econPort := testport.Addr(t)
	_, p, _ := strings.Cut(econPort, ":")
	addr, done := startServer(t, fmt.Sprintf("[register]\nenabled = true\nurl = %q\n[econ]\nport = %s\npassword = \"pw\"\n[bots]\nfill = 4\n",
		m.URL(), p), &logs)
	waitUntil(t, "listed", 5*time.Second, func() bool { _, ok := masterClients(t, m); return ok })

	ec, err := net.Dial("tcp", econPort)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	r := bufio.NewReader(ec)
	expect := func(want string) {
		t.Helper()
		_ = ec.SetReadDeadline(time.Now().Add(5 * time.Second))
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("econ: waiting for %q: %v", want, err)
			}
			if strings.Contains(line, want) {
				return
			}
		}
	}
	expect("Enter password:")
	fmt.Fprintf(ec, "pw\n")
	expect("Authentication successful")
	fmt.Fprintf(ec, "bot_add hard Ada\nbot_add easy\n")
	expect("bot has entered the game")
	expect("bot has entered the game")

	bots := func() int { _, rows := servertest.Info7(t, addr); return servertest.InfoBots(rows) }
	if n := bots(); n != 2 {
		t.Fatalf("the 0.7 info shows %d bots, want 2", n)
	}
	time.Sleep(1500 * time.Millisecond) // any new info would have reached the master by now
	if names, _ := masterClients(t, m); len(names) != 0 {
		t.Errorf("the master lists %v with only bots on the server", names)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	startClient(ctx, t, addr, "human", nil)
	waitUntil(t, "the human at the master", 5*time.Second, func() bool {
		names, _ := masterClients(t, m)
		return strings.Join(names, ",") == "human"
	})
	waitUntil(t, "a fill bot", 3*time.Second, func() bool { return bots() == 3 })
	time.Sleep(1500 * time.Millisecond)
	if names, _ := masterClients(t, m); strings.Join(names, ",") != "human" {
		t.Errorf("the master lists %v, want the human alone", names)
	}
	for _, e := range m.Servers() {
		if strings.Contains(string(e.Info), "Ada") || !strings.Contains(string(e.Info), strconv.Quote("human")) {
			t.Errorf("master info: %s", e.Info)
		}
	}
	cancel()
	stopServer(t, done, &logs)
}
