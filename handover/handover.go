package handover

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EnvVar is the environment variable that tells a process it is the new
// one of a handover, and which inherited descriptor is which.
const EnvVar = "TWSERVER_HANDOVER"

// envVersion is the first field of EnvVar's value.
const envVersion = "v1"

// PrepareTimeout bounds the time the old process waits for the new one to
// report "prepared" (its configuration read and checked, its maps loaded)
// while the games go on: a new binary that hangs longer is killed.
const PrepareTimeout = 10 * time.Second

// ReadyTimeout bounds the time the old process, its games held, waits for
// the new one to report "ready" after it handed the state over: a new
// process that takes longer is killed and the games resume. Clients keep
// their connections through such a pause (their timeout is 10 s and more).
const ReadyTimeout = 2 * time.Second

// MaxState bounds the state a handover carries; a larger one is refused.
const MaxState = 16 << 20

// MaxStatusLine bounds the child's status line.
const MaxStatusLine = 512

// Format is the first line of the state: the name and version of the
// state's form. A new binary whose Format differs refuses the state.
// (A variable so that a test can build a binary that speaks another.)
var Format = "twserver-handover/1"

// exe is the path the process was started from (Remember).
var exe struct {
	sync.Mutex
	path string
	err  error
}

// Remember resolves and keeps the path of the running binary; call it at
// the start of main, before the file can be replaced (Linux's
// /proc/self/exe of a replaced file names the deleted file). A new binary
// installed at that path is what an upgrade starts. The path is the one
// the process was started by, symbolic links kept (invokedPath): an
// operator who deploys by pointing a symlink at a new release (current ->
// releases/1.3) upgrades to that release.
func Remember() {
	exe.Lock()
	defer exe.Unlock()
	if exe.path != "" || exe.err != nil {
		return
	}
	p, err := os.Executable()
	if err == nil {
		p, err = filepath.EvalSymlinks(p)
	}
	if err == nil && len(os.Args) > 0 {
		p = invokedPath(os.Args[0], p)
	}
	exe.path, exe.err = p, err
}

// invokedPath is arg0, the path the process was started by, made absolute
// (looked up in PATH when it has no '/') with its symbolic links kept, when
// it names the running binary exe; exe otherwise (a renamed argv[0]).
func invokedPath(arg0, exe string) string {
	p := arg0
	if !strings.Contains(p, "/") {
		lp, err := exec.LookPath(p)
		if err != nil {
			return exe
		}
		p = lp
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return exe
	}
	a, err := os.Stat(abs)
	if err != nil {
		return exe
	}
	if b, err := os.Stat(exe); err != nil || !os.SameFile(a, b) {
		return exe
	}
	return abs
}

// Executable is the path kept by Remember.
func Executable() (string, error) {
	Remember()
	exe.Lock()
	defer exe.Unlock()
	return exe.path, exe.err
}

// State is what passes from the old process to the new one besides the
// sockets; it is read and written as JSON after the Format line.
type State struct {
	// Games is the state of each game, in the order of the old process's
	// games.
	Games []GameState `json:"games"`
	// Upgrades are the old process's live upgrades by result (the order of
	// Result), this one counted as Ready: the process that serves next
	// goes on from them, so the count of upgrades that took over is seen
	// (the process that counted it exits at once). A field added to
	// format 1.
	Upgrades []uint64 `json:"upgrades,omitempty"`
}

// GameState is one game's part of the state.
type GameState struct {
	// Addr is the game's UDP address as configured (bind:port); its socket
	// is the inherited file named "udp/"+Addr.
	Addr string `json:"addr"`
	// Slots are the game's connected clients in the form the game's own
	// package exports them (server.ExportSlots: session.Handover, JSON).
	Slots json.RawMessage `json:"slots,omitempty"`
	// World is the game's world in the form the game's package exports it
	// (server.ExportWorld: the map, the world's state of package
	// worldstate, the tick schedule; JSON). Without it the clients join a
	// new game on the same map.
	World json.RawMessage `json:"world,omitempty"`
	// Bans are the game's bans not expired (edge.BanRecord, JSON: addr,
	// until, reason), oldest first. A field added to format 1: a binary
	// that does not know it starts without the bans.
	Bans json.RawMessage `json:"bans,omitempty"`
	// GameType is the game type the game plays, as the server info names
	// it (DM, TDM, CTF, LMS, LTS): its world passes only to a process
	// configured for the same. A field added to format 1: without it the
	// world's own check refuses a mismatch, less clearly.
	GameType string `json:"game_type,omitempty"`
}

// Encode writes s in the handover's form: the Format line, then JSON.
func Encode(w io.Writer, s State) error {
	if _, err := io.WriteString(w, Format+"\n"); err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(s)
}

// ErrFormat is the error of a state in another form than Format.
var ErrFormat = errors.New("handover: unknown state format")

// Decode reads a state written by Encode, at most MaxState bytes.
func Decode(r io.Reader) (State, error) {
	var s State
	br := bufio.NewReader(io.LimitReader(r, MaxState+1))
	line, err := br.ReadString('\n')
	if err != nil {
		return s, fmt.Errorf("handover: reading the format line: %w", err)
	}
	if got := strings.TrimSuffix(line, "\n"); got != Format {
		return s, fmt.Errorf("%w: %.64q, this binary reads %q", ErrFormat, got, Format)
	}
	body, err := io.ReadAll(br)
	if err != nil {
		return s, fmt.Errorf("handover: reading the state: %w", err)
	}
	if len(body)+len(line) > MaxState {
		return s, fmt.Errorf("handover: the state is larger than %d bytes", MaxState)
	}
	if err := json.Unmarshal(body, &s); err != nil {
		return s, fmt.Errorf("handover: decoding the state: %w", err)
	}
	return s, nil
}

// File is a descriptor that passes to the new process under a name (no
// ';' or '=' in it).
type File struct {
	Name string
	F    *os.File
}

// Result says how a handover ended, as Child.Wait reports it.
type Result int

// The results of a handover.
const (
	// Ready: the new process serves; the old one exits.
	Ready Result = iota
	// Exited: the new process exited (or closed its status pipe) before it
	// was ready.
	Exited
	// Refused: the new process refused the state and gave its reason.
	Refused
	// Hung: the new process did not answer within ReadyTimeout; it was
	// killed.
	Hung
	// StartFailed: the new process could not be started.
	StartFailed
)

// String names the result (the metric's label).
func (r Result) String() string {
	switch r {
	case Ready:
		return "ready"
	case Exited:
		return "exited"
	case Refused:
		return "refused"
	case Hung:
		return "hung"
	case StartFailed:
		return "start_failed"
	}
	return "unknown"
}

// Child is a new process started by Start.
type Child struct {
	cmd    *exec.Cmd
	status *os.File // the read end of the status pipe
	state  *os.File // the write end of the state pipe
	lines  chan string
	exited chan struct{}
	code   int
}

// Start starts path with args (without the program name), the files, and
// its standard input, output and error as given. The caller then waits for
// Prepared, hands the state over with Hand and waits for Ready.
func Start(path string, args []string, files []File, stdin io.Reader, stdout, stderr io.Writer) (*Child, error) {
	stateR, stateW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		stateR.Close()
		stateW.Close()
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.ExtraFiles = []*os.File{stateR, statusW}
	env := []string{envVersion, "state=3", "status=4"}
	for i, f := range files {
		if strings.ContainsAny(f.Name, ";=") || f.Name == "state" || f.Name == "status" {
			return nil, fmt.Errorf("handover: bad file name %q", f.Name)
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, f.F)
		env = append(env, f.Name+"="+strconv.Itoa(5+i))
	}
	cmd.Env = append(withoutVar(os.Environ()), EnvVar+"="+strings.Join(env, ";"))
	err = cmd.Start()
	stateR.Close()
	statusW.Close()
	if err != nil {
		stateW.Close()
		statusR.Close()
		return nil, err
	}
	c := &Child{cmd: cmd, status: statusR, state: stateW, lines: make(chan string, 2), exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		c.code = cmd.ProcessState.ExitCode()
		close(c.exited)
	}()
	go c.readStatus()
	return c, nil
}

// readStatus passes the child's status lines to c.lines; "" at the end.
func (c *Child) readStatus() {
	br := bufio.NewReaderSize(c.status, MaxStatusLine)
	for i := 0; i < 2; i++ { // "prepared", then "ready" or "refuse"
		line, err := br.ReadSlice('\n')
		if err != nil {
			break
		}
		c.lines <- string(line)
	}
	c.lines <- ""
}

// Hand writes the state to the child (in a goroutine: the pipe's buffer
// is small; a child that does not read it fails the Wait that follows).
func (c *Child) Hand(s State) error {
	var body bytes.Buffer
	if err := Encode(&body, s); err != nil {
		return err
	}
	go func() {
		_, _ = c.state.Write(body.Bytes())
		c.state.Close()
	}()
	return nil
}

// withoutVar is env without EnvVar (a process that was itself a new one
// passes on only its own files).
func withoutVar(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, EnvVar+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// Pid is the child's process id.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Prepared waits at most timeout for the child's "prepared" (its
// configuration read and checked, ready to take the state). On anything
// but Ready the child is gone when it returns.
func (c *Child) Prepared(timeout time.Duration) (r Result, detail string) {
	return c.await("prepared\n", timeout)
}

// Wait waits at most timeout for the child's "ready" after Hand and says
// how the handover ended, with the child's reason or exit status in
// detail. On anything but Ready the child is gone when it returns (killed
// if it still ran).
func (c *Child) Wait(timeout time.Duration) (r Result, detail string) {
	r, detail = c.await("ready\n", timeout)
	if r == Ready {
		c.status.Close()
	}
	return r, detail
}

// await waits for the status line want.
func (c *Child) await(want string, timeout time.Duration) (r Result, detail string) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case s := <-c.lines:
		switch {
		case s == want:
			return Ready, ""
		case strings.HasPrefix(s, "refuse "):
			r, detail = Refused, strings.TrimSpace(strings.TrimPrefix(s, "refuse "))
		case s == "":
			r = Exited
		default:
			r, detail = Refused, fmt.Sprintf("unexpected status %.64q", s)
		}
	case <-timer.C:
		r, detail = Hung, "no "+strings.TrimSpace(want)+" within "+timeout.String()
	}
	c.state.Close()
	grace := time.Second // a refusing child exits by itself
	if r == Hung {
		grace = 0
	}
	select {
	case <-c.exited:
	case <-time.After(grace):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
	c.status.Close()
	if r == Exited {
		detail = "exit status " + strconv.Itoa(c.code)
	}
	return r, detail
}

// Incoming is the new process's side of a handover.
type Incoming struct {
	files  map[string]*os.File
	state  *os.File
	status *os.File
}

// Inherited returns the handover this process is the new side of, or nil
// when EnvVar is not set (a plain start). The variable is removed from the
// environment.
func Inherited() (*Incoming, error) {
	v, ok := os.LookupEnv(EnvVar)
	if !ok {
		return nil, nil
	}
	_ = os.Unsetenv(EnvVar)
	fields := strings.Split(v, ";")
	if fields[0] != envVersion {
		return nil, fmt.Errorf("handover: %s %.32q: this binary reads %s", EnvVar, fields[0], envVersion)
	}
	in := &Incoming{files: map[string]*os.File{}}
	for _, f := range fields[1:] {
		name, num, ok := strings.Cut(f, "=")
		fd, err := strconv.Atoi(num)
		if !ok || err != nil || fd < 3 {
			return nil, fmt.Errorf("handover: %s: bad field %.64q", EnvVar, f)
		}
		file := os.NewFile(uintptr(fd), name)
		switch name {
		case "state":
			in.state = file
		case "status":
			in.status = file
		default:
			in.files[name] = file
		}
	}
	if in.state == nil || in.status == nil {
		return nil, fmt.Errorf("handover: %s names no state or status pipe", EnvVar)
	}
	return in, nil
}

// State reads the state the old process passed.
func (in *Incoming) State() (State, error) {
	defer in.state.Close()
	return Decode(in.state)
}

// File returns the inherited file name and takes it from the handover (a
// second call returns nil).
func (in *Incoming) File(name string) *os.File {
	f := in.files[name]
	delete(in.files, name)
	return f
}

// Names are the names of the files not taken yet, sorted.
func (in *Incoming) Names() []string {
	var n []string
	for k := range in.files {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Prepared tells the old process this one is ready to take the state
// (State next); the old one then holds its games.
func (in *Incoming) Prepared() error {
	_, err := io.WriteString(in.status, "prepared\n")
	return err
}

// Ready tells the old process this one serves; it then exits.
func (in *Incoming) Ready() error {
	defer in.status.Close()
	_, err := io.WriteString(in.status, "ready\n")
	return err
}

// Refuse tells the old process this one cannot take the state over, and
// why (one line); the old one resumes. The caller exits next.
func (in *Incoming) Refuse(reason string) error {
	defer in.status.Close()
	reason = strings.Map(func(r rune) rune {
		if r < ' ' {
			return ' '
		}
		return r
	}, reason)
	if len(reason) > MaxStatusLine-16 {
		reason = reason[:MaxStatusLine-16]
	}
	_, err := io.WriteString(in.status, "refuse "+reason+"\n")
	return err
}
