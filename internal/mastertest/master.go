// Package mastertest is a DDNet HTTP master server for tests, written from
// the protocol description (ops-facts.md 1.2, net.md B6.6) and the behaviour
// of DDNet's mastersrv: it answers register POSTs with need_challenge until
// the request carries the challenge token it sent by UDP to the announced
// game port (0.6 or 0.7 framing, the latter with the Connless-Token), asks
// for the info when its serial is newer than the one it holds, keeps entries
// by Secret with one address per protocol, and removes an address on
// "Action: delete". It listens on loopback only and can misbehave on demand
// (answer errors, hang, go down) to test the server's side of it.
package mastertest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Mode selects how the master answers.
type Mode int

// Modes.
const (
	// Normal follows the protocol.
	Normal Mode = iota
	// Errors answers every request with HTTP 500 and a non-JSON body.
	Errors
	// Hang never answers: the request is held until the client gives up
	// or the master is closed.
	Hang
)

// MaxBody bounds a register body the master reads.
const MaxBody = 64 << 10

// Request is one request the master received, as seen on the wire.
type Request struct {
	At     time.Time
	Remote netip.AddrPort
	Header http.Header
	Body   []byte
	// Status is what the master answered ("" when it did not answer).
	Status string
}

// Delete reports whether r is an "Action: delete".
func (r Request) Delete() bool { return r.Header.Get("Action") == "delete" }

// Protocol is the protocol of the request, from Challenge-Secret
// ("tw0.7/ipv4"); deletes carry none.
func (r Request) Protocol() string {
	_, p, _ := strings.Cut(r.Header.Get("Challenge-Secret"), ":")
	return p
}

// Entry is one listed server (by Secret).
type Entry struct {
	Addresses  []string // "tw-0.7+udp://127.0.0.1:8303", sorted
	InfoSerial int64
	Info       json.RawMessage
}

// Master is a running test master.
type Master struct {
	ln   net.Listener
	srv  *http.Server
	udp  *net.UDPConn
	seed [32]byte
	tls  bool // URL is https (StartTLS)

	mu        sync.Mutex
	mode      Mode
	requests  []Request
	servers   map[string]*Entry // by Secret
	addresses map[string]string // address -> Secret
	hang      chan struct{}     // closed by Close to release hung requests
	closed    bool
}

// Start runs a master on 127.0.0.1 (addr "127.0.0.1:0") or [::1]; its
// register URL is URL().
func Start(addr string) (*Master, error) {
	return start(addr, nil)
}

// start binds the master; wrap, if set, wraps the TCP listener (TLS).
func start(addr string, wrap func(net.Listener) net.Listener) (*Master, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().IsLoopback() {
		return nil, fmt.Errorf("mastertest: %q is not a loopback address:port", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	network := "udp4"
	if ap.Addr().Is6() {
		network = "udp6"
	}
	udp, err := net.ListenUDP(network, &net.UDPAddr{IP: net.IP(ap.Addr().AsSlice())})
	if err != nil {
		ln.Close()
		return nil, err
	}
	served := ln
	if wrap != nil {
		served = wrap(ln)
	}
	m := &Master{ln: served, udp: udp, servers: map[string]*Entry{}, addresses: map[string]string{}, hang: make(chan struct{})}
	_, _ = rand.Read(m.seed[:])
	m.srv = &http.Server{Handler: http.HandlerFunc(m.serve), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = m.srv.Serve(m.ln) }()
	return m, nil
}

// StartTLS is Start serving HTTPS with a fresh self-signed certificate for
// the loopback address, for registrars that only speak HTTPS. certPEM is
// the certificate to trust (e.g. as a CA file for the registrar).
func StartTLS(addr string) (m *Master, certPEM []byte, err error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().IsLoopback() {
		return nil, nil, fmt.Errorf("mastertest: %q is not a loopback address:port", addr)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: ap.Addr().String()},
		IPAddresses:           []net.IP{net.IP(ap.Addr().AsSlice())},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	m, err = start(addr, func(ln net.Listener) net.Listener {
		return tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	})
	if err != nil {
		return nil, nil, err
	}
	m.tls = true
	return m, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// URL is the register URL.
func (m *Master) URL() string {
	scheme := "http"
	if m.tls {
		scheme = "https"
	}
	return scheme + "://" + m.ln.Addr().String() + "/ddnet/15/register"
}

// SetMode changes how the master answers from now on.
func (m *Master) SetMode(mode Mode) {
	m.mu.Lock()
	m.mode = mode
	m.mu.Unlock()
}

// Close stops the master: the listener closes (connections are refused),
// open connections are cut and hung requests released.
func (m *Master) Close() {
	m.mu.Lock()
	if !m.closed {
		m.closed = true
		close(m.hang)
	}
	m.mu.Unlock()
	_ = m.srv.Close()
	_ = m.udp.Close()
}

// Requests returns a copy of the requests received so far.
func (m *Master) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.requests...)
}

// Servers returns a copy of the listed servers by Secret.
func (m *Master) Servers() map[string]Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]Entry, len(m.servers))
	for k, e := range m.servers {
		out[k] = Entry{Addresses: append([]string(nil), e.Addresses...), InfoSerial: e.InfoSerial, Info: e.Info}
	}
	return out
}

// answer is the master's JSON answer.
type answer struct {
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

func (m *Master) serve(w http.ResponseWriter, r *http.Request) {
	remote, _ := netip.ParseAddrPort(r.RemoteAddr)
	body, _ := io.ReadAll(io.LimitReader(r.Body, MaxBody))
	req := Request{At: time.Now(), Remote: remote, Header: r.Header.Clone(), Body: body}
	m.mu.Lock()
	mode, hang := m.mode, m.hang
	m.mu.Unlock()
	switch mode {
	case Errors:
		m.record(req, "")
		http.Error(w, "internal server error", http.StatusInternalServerError)
		return
	case Hang:
		m.record(req, "")
		select {
		case <-hang:
		case <-r.Context().Done():
		}
		return
	}
	code, ans := http.StatusOK, answer{}
	var err error
	if r.Method != http.MethodPost || r.URL.Path != "/ddnet/15/register" {
		code, err = http.StatusNotFound, errors.New("not found")
	} else if r.Header.Get("Action") == "delete" {
		ans, err = m.delete(remote.Addr(), r.Header)
	} else {
		ans, err = m.register(remote.Addr(), r.Header, body)
	}
	if err != nil {
		if code == http.StatusOK {
			code = http.StatusBadRequest
		}
		ans = answer{Status: "error", Message: err.Error()}
	}
	m.record(req, ans.Status)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b, _ := json.Marshal(ans)
	_, _ = w.Write(append(b, '\n'))
}

func (m *Master) record(req Request, status string) {
	req.Status = status
	m.mu.Lock()
	m.requests = append(m.requests, req)
	m.mu.Unlock()
}

// parseAddress parses the Address header and puts in the request's source
// IP as the master does; it returns the listed address and the UDP target.
func parseAddress(h string, ip netip.Addr) (string, netip.AddrPort, bool, error) {
	var seven bool
	rest, ok := strings.CutPrefix(h, "tw-0.7+udp://")
	if ok {
		seven = true
	} else if rest, ok = strings.CutPrefix(h, "tw-0.6+udp://"); !ok {
		return "", netip.AddrPort{}, false, fmt.Errorf("invalid header Address: unknown scheme in %q", h)
	}
	_, port, err := net.SplitHostPort(rest)
	if err != nil {
		return "", netip.AddrPort{}, false, fmt.Errorf("invalid header Address: %v", err)
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 {
		return "", netip.AddrPort{}, false, fmt.Errorf("invalid header Address: port %q", port)
	}
	target := netip.AddrPortFrom(ip.Unmap(), uint16(n))
	scheme := "tw-0.6+udp://"
	if seven {
		scheme = "tw-0.7+udp://"
	}
	return scheme + target.String(), target, seven, nil
}

func (m *Master) challengeFor(addr string) string {
	mac := hmac.New(sha256.New, m.seed[:])
	mac.Write([]byte(addr))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil)[:16])
}

func (m *Master) register(ip netip.Addr, h http.Header, body []byte) (answer, error) {
	for _, k := range []string{"Address", "Secret", "Challenge-Secret", "Info-Serial"} {
		if h.Get(k) == "" {
			return answer{}, fmt.Errorf("missing required header %s", k)
		}
	}
	addr, target, seven, err := parseAddress(h.Get("Address"), ip)
	if err != nil {
		return answer{}, err
	}
	var token []byte
	if seven {
		t := h.Get("Connless-Token")
		if t == "" {
			return answer{}, errors.New("registering with tw-0.7+udp:// requires header Connless-Token")
		}
		if token, err = hex.DecodeString(t); err != nil || len(token) != 4 {
			return answer{}, fmt.Errorf("invalid hex in Connless-Token: %q", t)
		}
	}
	serial, err := strconv.ParseInt(h.Get("Info-Serial"), 10, 64)
	if err != nil {
		return answer{}, fmt.Errorf("invalid header Info-Serial: %v", err)
	}
	var info json.RawMessage
	if len(body) > 0 {
		mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
		if mt != "application/json" {
			return answer{}, errors.New("the request's Content-Type is not supported")
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(body, &obj); err != nil {
			return answer{}, fmt.Errorf("register info must be an object: %v", err)
		}
		info = append(json.RawMessage(nil), body...)
	}
	challenge := m.challengeFor(addr)
	ct := h.Get("Challenge-Token")
	status := "need_challenge"
	if ct == challenge {
		status = m.add(addr, h.Get("Secret"), serial, info)
	}
	if ct != challenge {
		m.sendChallenge(target, token, h.Get("Challenge-Secret"), challenge)
	}
	return answer{Status: status}, nil
}

// add lists addr under secret; it answers need_info when the serial is
// newer than the one held and no info came along.
func (m *Master) add(addr, secret string, serial int64, info json.RawMessage) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.servers[secret]
	if (e == nil || serial > e.InfoSerial) && info == nil {
		return "need_info"
	}
	if old, ok := m.addresses[addr]; ok && old != secret {
		m.removeLocked(addr, old)
	}
	if e == nil {
		e = &Entry{InfoSerial: serial, Info: info}
		m.servers[secret] = e
	} else if serial > e.InfoSerial {
		e.InfoSerial, e.Info = serial, info
	}
	if _, ok := m.addresses[addr]; !ok {
		m.addresses[addr] = secret
		e.Addresses = append(e.Addresses, addr)
		slices.Sort(e.Addresses)
	}
	return "success"
}

func (m *Master) delete(ip netip.Addr, h http.Header) (answer, error) {
	addr, _, _, err := parseAddress(h.Get("Address"), ip)
	if err != nil {
		return answer{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	secret := h.Get("Secret")
	if m.addresses[addr] != secret || secret == "" {
		return answer{}, errors.New("could not find registered server")
	}
	m.removeLocked(addr, secret)
	return answer{Status: "success"}, nil
}

func (m *Master) removeLocked(addr, secret string) {
	delete(m.addresses, addr)
	e := m.servers[secret]
	for i, a := range e.Addresses {
		if a == addr {
			e.Addresses = append(e.Addresses[:i], e.Addresses[i+1:]...)
			break
		}
	}
	if len(e.Addresses) == 0 {
		delete(m.servers, secret)
	}
}

// sendChallenge sends the challenge to the game port: the 0.7 form is a
// connless packet with the server's Connless-Token, the 0.6 form has the
// 0.6 connless header (net.md B6.6).
func (m *Master) sendChallenge(to netip.AddrPort, token7 []byte, secret, challenge string) {
	if !to.Addr().IsLoopback() { // never a packet off this machine
		return
	}
	var p []byte
	if token7 != nil {
		p = append(p, 0x21)
		p = append(p, token7...)
		p = binary.BigEndian.AppendUint32(p, 0xffffffff)
	} else {
		p = append(p, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	}
	p = append(p, "\xff\xff\xff\xffchal"...)
	p = append(p, secret...)
	p = append(p, 0)
	p = append(p, challenge...)
	p = append(p, 0)
	_, _ = m.udp.WriteToUDPAddrPort(p, to)
}
