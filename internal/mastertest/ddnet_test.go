package mastertest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"twserver/internal/heavytest"
	"twserver/internal/refserver"
	"twserver/internal/testenv"
)

// The test master is checked against the real thing on the other side of
// the protocol: DDNet-Server 16.4 (Debian ddnet-server), whose HTTP
// registration is the reference twserver's registerer follows. The server
// runs in a private network namespace with nothing but loopback (the test
// re-runs itself under `unshare --net`), so no packet and no name look-up
// leaves the machine.

const (
	ddnetInnerEnv = "TWSERVER_MASTERTEST_INNER"
	tw07Map       = "/usr/share/games/teeworlds/data/maps/dm1.map"
	// systemCABundle is the CA file Debian's libcurl trusts.
	systemCABundle = "/etc/ssl/certs/ca-certificates.crt"
)

// TestRealDDNetServerRegisters: DDNet-Server 16.4 registers tw0.6/ipv4 and
// tw0.7/ipv4 with the test master (after the UDP challenge to its game
// port, in both framings), its info body is taken, and its shutdown
// deletes both addresses.
func TestRealDDNetServerRegisters(t *testing.T) {
	if testing.Short() {
		t.Skip("reference-server test skipped in -short mode")
	}
	if refserver.Inner(t, ddnetInnerEnv) {
		ddnetInner(t)
		return
	}
	testenv.Stat(t, refserver.DDNetPath, "ddnet-server")
	testenv.Stat(t, tw07Map, "teeworlds-data")
	heavytest.Lock(t)
	refserver.RunInner(t, ddnetInnerEnv, "--mount")
}

func ddnetInner(t *testing.T) {
	// DDNet's HTTP client only speaks HTTPS: the master serves TLS with a
	// self-signed certificate the server is told to trust.
	m, certPEM, err := StartTLS("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	dir := t.TempDir()
	caFile := filepath.Join(dir, "master-ca.pem")
	if err := os.WriteFile(caFile, certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	// Its libcurl reads the system CA bundle: in this private mount
	// namespace (unshare --mount, private propagation) the bundle is the
	// master's certificate alone; the host's file is untouched.
	if b, err := exec.Command("mount", "--bind", caFile, systemCABundle).CombinedOutput(); err != nil {
		testenv.Require(t, "a bind mount of the test CA over "+systemCABundle+" in the private mount namespace", fmt.Errorf("%v: %s", err, b))
	}
	mapData, err := os.ReadFile(tw07Map)
	if err != nil {
		t.Fatal(err)
	}
	srv := refserver.StartDDNet(t, map[string][]byte{"maps7/dm1.map": mapData}, "sv_map dm1",
		"sv_name mastertest-ddnet", "sv_sixup 1", "sv_register 1", `sv_register_url "`+m.URL()+`"`)
	port := srv.Port

	want := "tw-0.6+udp://127.0.0.1:" + strconv.Itoa(port) + " tw-0.7+udp://127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(20 * time.Second)
	var listed Entry
	for listed.Info == nil {
		for _, e := range m.Servers() {
			if strings.Join(e.Addresses, " ") == want {
				listed = e
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("DDNet-Server not listed with %s; servers %v\nrequests %v\nserver log:\n%s", want, m.Servers(), m.Requests(), srv.Logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	var info struct {
		Name string `json:"name"`
		Map  struct {
			Name string `json:"name"`
		} `json:"map"`
	}
	if err := json.Unmarshal(listed.Info, &info); err != nil || info.Name != "mastertest-ddnet" || info.Map.Name != "dm1" {
		t.Errorf("info %s (%v)", listed.Info, err)
	}
	challenged := map[string]bool{}
	for _, q := range m.Requests() {
		if q.Header.Get("Challenge-Token") != "" && q.Status == "success" {
			challenged[q.Protocol()] = true
		}
	}
	if !challenged["tw0.6/ipv4"] || !challenged["tw0.7/ipv4"] {
		t.Errorf("successful challenged registrations: %v", challenged)
	}

	srv.Stop(t, 10*time.Second)
	deletes := 0
	for _, q := range m.Requests() {
		if q.Delete() && q.Status == "success" {
			deletes++
		}
	}
	if deletes != 2 || len(m.Servers()) != 0 {
		t.Errorf("%d successful deletes, %d servers left after the shutdown\n%s", deletes, len(m.Servers()), srv.Logs.String())
	}
	t.Logf("DDNet-Server 16.4 registered %s with the test master and deleted it on shutdown (%d requests)", want, len(m.Requests()))
}
