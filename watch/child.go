package watch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"

	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world/twmap"
)

// Builds in a child process. A server that shares its cores with games
// replays recordings in a process of its own (Cache.SetChild): the
// replay's CPU, heap and garbage collection are then the child's, at the
// child's scheduling priority, and never hold a runtime thread (P) of the
// games' process or stop it for a collection. The parent hands the child
// the map on its standard input and the recording as file descriptor 3,
// and reads what the build makes as records on the child's standard
// output: a kind byte, a uvarint length, that many bytes.

// ChildArg is the first argument of a build child process: a program
// whose Cache builds in children (SetChild) starts its main with
// "if watch.IsChild() { os.Exit(watch.RunChild()) }".
const ChildArg = "-watch-build-child"

// childEnv is set to "1" in a build child's environment (IsChild wants
// both it and ChildArg).
const childEnv = "TWSERVER_WATCH_BUILD_CHILD"

// Bounds of a build child.
const (
	// MaxChildRecord bounds one record a build child sends (a chunk, the
	// map layer, an event); a longer one ends the build with an error.
	MaxChildRecord = 16 << 20
	// MaxChildMap bounds the map file handed to a build child (the
	// server's own bound on a map file); a larger map is built in the
	// process.
	MaxChildMap = 32 << 20
	// MaxChildStderr bounds the error output of a build child kept for
	// the build's error.
	MaxChildStderr = 1024
	// MaxChildMemory bounds the address space a build child may take
	// beyond what it has when it starts (RLIMIT_AS on Linux): a file whose
	// replay would need more ends its child, never the server.
	MaxChildMemory = 1 << 30
)

// childNiceEnv is the scheduling priority a build child gives all its
// threads (it was started at it, unless from the parent's main thread).
const childNiceEnv = "TWSERVER_WATCH_BUILD_CHILD_NICE"

// childMemEnv, when set in a build child's environment, replaces
// MaxChildMemory (tests).
const childMemEnv = "TWSERVER_WATCH_BUILD_CHILD_MEM"

// ErrChild is the error of a build whose child process failed or sent
// what is not a build's records.
var ErrChild = errors.New("watch: build process")

// Record kinds of a build child's output.
const (
	recLayer      = 'L' // teams (0 or 1), then the map layer's JSON
	recLast       = 'T' // the newest frame's tick (varint)
	recChunk      = 'C' // chunk index (uvarint), then the gzip'd chunk
	recEnd        = 'E' // the rough pass's last tick (varint)
	recRough      = 'R' // rough chunk index (uvarint), then the gzip'd chunk
	recEvent      = 'V' // an Event's JSON
	recName       = 'N' // a PlayerName's JSON
	recUnfinished = 'U' // 0 or 1
	recCheckpoint = 'K' // a checkpoint the rough pass found: its point (offset uvarint, tick and last cid varint), its tick (varint), the settings as of it (JSON of replay.ConfigKVs)
	recResult     = 'X' // the build's error ("": none); the last record
)

// IsChild reports whether this process was started as a build child.
func IsChild() bool {
	return len(os.Args) > 1 && os.Args[1] == ChildArg && os.Getenv(childEnv) == "1"
}

// RunChild builds the recording of file descriptor 3 on the map of the
// standard input (uvarint name length, name, uvarint data length, data),
// or, when a seek follows the map (uvarint chunk index + 1, uvarint
// length, a checkpoint as in recCheckpoint), replays that one chunk from
// the checkpoint; it writes the records to the standard output and
// returns the process's exit code (a build's error is a record, not an
// exit code).
func RunChild() int {
	mem := int64(MaxChildMemory)
	if v, err := strconv.ParseInt(os.Getenv(childMemEnv), 10, 64); err == nil && v > 0 && v < mem {
		mem = v
	}
	if nice, err := strconv.Atoi(os.Getenv(childNiceEnv)); err == nil && nice > 0 && nice <= MaxNice {
		_ = lowerProcess(nice) // where the kernel refuses, it builds as it is
	}
	if err := limitMemory(mem); err != nil {
		fmt.Fprintln(os.Stderr, "watch: the build's memory bound:", err)
		return 1
	}
	if err := runChild(context.Background(), os.Stdin, os.NewFile(3, "recording"), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func runChild(ctx context.Context, in io.Reader, f *os.File, out io.Writer) error {
	br := bufio.NewReader(in)
	name, err := readBytes(br, twmap.MaxNameLen)
	if err != nil {
		return fmt.Errorf("the map's name: %w", err)
	}
	data, err := readBytes(br, MaxChildMap)
	if err != nil {
		return fmt.Errorf("the map: %w", err)
	}
	var ck ckptRef
	seek, err := binary.ReadUvarint(br)
	switch {
	case err == io.EOF: // a build
		seek = 0
	case err != nil || seek > MaxChunk+1:
		return fmt.Errorf("the seek's chunk: %v", err)
	case seek > 0:
		b, err := readBytes(br, maxCheckpointRecord)
		if err != nil {
			return fmt.Errorf("the seek's checkpoint: %w", err)
		}
		var ok bool
		if ck, ok = readCheckpoint(b); !ok {
			return errors.New("the seek's checkpoint: malformed")
		}
	}
	if f != nil {
		defer f.Close()
	}
	p := &pipeSink{w: bufio.NewWriterSize(out, 64<<10)}
	m, err := childOpen(string(name), data, f)
	switch {
	case err != nil:
	case seek == 0:
		err = childBuild(ctx, p, m, f)
	default:
		err = childSeek(ctx, p, m, f, ck, int(seek-1))
	}
	p.result(err)
	return p.w.Flush()
}

// maxCheckpointRecord bounds a checkpoint handed to a seek child (its
// point, tick and the game settings as of it).
const maxCheckpointRecord = 64 << 10

// childSeek is a seek child's work: chunk k replayed from checkpoint ck of
// the recording f, sent as a chunk record.
func childSeek(ctx context.Context, p *pipeSink, m *twmap.Map, f *os.File, ck ckptRef, k int) error {
	h, err := teehist.NewReader(f).ReadHeader()
	if err != nil {
		return err
	}
	z, err := seekFrom(ctx, f, h, m, ck, k)
	if err != nil {
		return err
	}
	return p.addChunk(k, z)
}

// childOpen loads a child's map and rewinds its recording.
func childOpen(name string, data []byte, f *os.File) (*twmap.Map, error) {
	m, err := twmap.Load(name, data)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, errors.New("watch: no recording given")
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return m, nil
}

// childBuild is a build child's work: the rough pass, then the build.
func childBuild(ctx context.Context, p *pipeSink, m *twmap.Map, f *os.File) error {
	rd := teehist.NewReader(f)
	if h, err := rd.ReadHeader(); err == nil {
		_ = roughPass(ctx, p, rd, h) // a help: a file that fails it is still built
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	rd = teehist.NewReader(f)
	h, err := rd.ReadHeader()
	if err != nil {
		return err
	}
	return build(ctx, p, rd, h, m)
}

// readBytes reads a uvarint length of at most limit and that many bytes.
func readBytes(r *bufio.Reader, limit int) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > uint64(limit) {
		return nil, fmt.Errorf("%d bytes, more than %d", n, limit)
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	return b, err
}

// pipeSink is a build child's sink: the records on its output. It keeps
// the bounds a Recording keeps, so that the child ends where an
// in-process build would; the newest tick is sent with the chunks.
type pipeSink struct {
	w                 *bufio.Writer
	buf               []byte
	bytes, roughN     int
	events, names     int
	ckpts             int
	last, end         int32
	sentLast, sentEnd int32
	haveLast, haveEnd bool
}

func (p *pipeSink) record(kind byte, k int, b []byte) {
	p.buf = append(p.buf[:0], kind)
	n := len(b)
	if k >= 0 {
		n += uvarintLen(uint64(k))
	}
	p.buf = binary.AppendUvarint(p.buf, uint64(n))
	if k >= 0 {
		p.buf = binary.AppendUvarint(p.buf, uint64(k))
	}
	_, _ = p.w.Write(p.buf)
	_, _ = p.w.Write(b)
}

func uvarintLen(v uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], v)
}

func (p *pipeSink) tick(kind byte, t int32) {
	var b [binary.MaxVarintLen32]byte
	p.record(kind, -1, b[:binary.PutVarint(b[:], int64(t))])
}

// flush sends the ticks not sent yet and writes the records out.
func (p *pipeSink) flush() {
	if p.haveLast && p.last != p.sentLast {
		p.tick(recLast, p.last)
		p.sentLast = p.last
	}
	if p.haveEnd && p.end != p.sentEnd {
		p.tick(recEnd, p.end)
		p.sentEnd = p.end
	}
	_ = p.w.Flush()
}

func (p *pipeSink) setLayer(layer []byte, teams bool) {
	t := byte(0)
	if teams {
		t = 1
	}
	p.record(recLayer, -1, append([]byte{t}, layer...))
	p.flush()
}

func (p *pipeSink) setLast(tick int32) {
	if !p.haveLast { // the first tick at once: Info's FirstTick
		p.tick(recLast, tick)
		p.sentLast = tick
	}
	p.last, p.haveLast = tick, true
}

func (p *pipeSink) setEnd(tick int32) { p.end, p.haveEnd = tick, true }

func (p *pipeSink) addChunk(k int, z []byte) error {
	return p.addBounded(recChunk, k, z, &p.bytes, MaxFileBytes, ErrTooLarge)
}

func (p *pipeSink) addRough(k int, z []byte) error {
	return p.addBounded(recRough, k, z, &p.roughN, MaxRoughBytes, errRoughFull)
}

// addBounded sends chunk k of kind unless *sum would pass limit (full).
func (p *pipeSink) addBounded(kind byte, k int, z []byte, sum *int, limit int, full error) error {
	if *sum+len(z) > limit {
		return full
	}
	*sum += len(z)
	p.record(kind, k, z)
	p.flush()
	return nil
}

func (p *pipeSink) addEvent(e Event) {
	if p.events < MaxEvents {
		p.events++
		b, _ := json.Marshal(e)
		p.record(recEvent, -1, b)
	}
}

func (p *pipeSink) addName(n PlayerName) {
	if p.names < MaxPlayerNames {
		p.names++
		b, _ := json.Marshal(n)
		p.record(recName, -1, b)
	}
}

func (p *pipeSink) addCheckpoint(c ckptRef) {
	if p.ckpts >= MaxCheckpoints {
		return
	}
	p.ckpts++
	p.record(recCheckpoint, -1, appendCheckpoint(nil, c))
}

// appendCheckpoint appends c as a recCheckpoint's payload (readCheckpoint
// reads it).
func appendCheckpoint(b []byte, c ckptRef) []byte {
	kvs, _ := json.Marshal(replay.ConfigKVs(c.settings))
	b = binary.AppendUvarint(b, uint64(c.at.Offset))
	b = binary.AppendVarint(b, int64(c.at.Tick))
	b = binary.AppendVarint(b, int64(c.at.LastCID))
	b = binary.AppendVarint(b, int64(c.tick))
	return append(b, kvs...)
}

func (p *pipeSink) setUnfinished(u bool) {
	b := byte(0)
	if u {
		b = 1
	}
	p.record(recUnfinished, -1, []byte{b})
}

func (p *pipeSink) result(err error) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	p.flush()
	p.record(recResult, -1, []byte(msg))
}

// childErrors are the errors a build's result names again in the parent,
// so that errors.Is finds them.
var childErrors = []error{ErrTooLarge, replay.ErrTooLong, replay.ErrDivergence, context.Canceled}

// resultError is the build's error of a result record.
func resultError(msg string) error {
	if msg == "" {
		return nil
	}
	for _, e := range childErrors {
		if s := e.Error(); strings.HasPrefix(msg, s) {
			return fmt.Errorf("%w%s", e, msg[len(s):])
		}
	}
	return errors.New(msg)
}

// readChild applies the records of a build child's output to rec until
// the result record; its error is the build's result, or ErrChild for an
// output that is not records, or rec's own bound reached.
func readChild(r *bufio.Reader, rec *Recording) error {
	var buf bytes.Buffer // grows with what comes, not with a length claimed
	for {
		kind, err := r.ReadByte()
		if err != nil {
			return fmt.Errorf("%w: output ended before the result (%v)", ErrChild, err)
		}
		n, err := binary.ReadUvarint(r)
		if err != nil || n > MaxChildRecord {
			return fmt.Errorf("%w: a record's length: %v", ErrChild, err)
		}
		buf.Reset()
		if _, err := io.CopyN(&buf, r, int64(n)); err != nil {
			return fmt.Errorf("%w: a record: %v", ErrChild, err)
		}
		payload := buf.Bytes()
		if kind == recResult {
			return resultError(string(payload))
		}
		if err := applyRecord(rec, kind, payload); err != nil {
			return err
		}
	}
}

// applyRecord applies one record (not the result) to rec.
func applyRecord(rec *Recording, kind byte, b []byte) error {
	bad := fmt.Errorf("%w: a bad record of kind %q", ErrChild, kind)
	switch kind {
	case recLayer:
		if len(b) < 1 || b[0] > 1 {
			return bad
		}
		rec.setLayer(bytes.Clone(b[1:]), b[0] == 1)
	case recLast, recEnd:
		t, n := binary.Varint(b)
		if n != len(b) || t < 0 || t > replay.MaxTicks {
			return bad
		}
		if kind == recLast {
			rec.setLast(int32(t))
		} else {
			rec.setEnd(int32(t))
		}
	case recChunk, recRough:
		k, n := binary.Uvarint(b)
		if n <= 0 || k > MaxChunk {
			return bad
		}
		if kind == recChunk {
			return rec.addChunk(int(k), b[n:]) // addChunk copies
		}
		if err := rec.addRough(int(k), b[n:]); err != nil && !errors.Is(err, errRoughFull) {
			return err
		}
	case recEvent:
		var e Event
		if json.Unmarshal(b, &e) != nil {
			return bad
		}
		rec.addEvent(e)
	case recName:
		var pn PlayerName
		if json.Unmarshal(b, &pn) != nil {
			return bad
		}
		rec.addName(pn)
	case recUnfinished:
		if len(b) != 1 || b[0] > 1 {
			return bad
		}
		rec.setUnfinished(b[0] == 1)
	case recCheckpoint:
		c, ok := readCheckpoint(b)
		if !ok {
			return bad
		}
		rec.addCheckpoint(c)
	default:
		return bad
	}
	return nil
}

// readCheckpoint reads a recCheckpoint's payload.
func readCheckpoint(b []byte) (ckptRef, bool) {
	var c ckptRef
	off, n := binary.Uvarint(b)
	if n <= 0 || off > math.MaxInt64 {
		return c, false
	}
	b = b[n:]
	var v [3]int64
	for i := range v {
		if v[i], n = binary.Varint(b); n <= 0 || v[i] < math.MinInt32 || v[i] > math.MaxInt32 {
			return c, false
		}
		b = b[n:]
	}
	var kvs []teehist.KV
	if json.Unmarshal(b, &kvs) != nil {
		return c, false
	}
	settings, err := replay.ParseSettings(&teehist.Header{Config: kvs})
	if err != nil || v[2] < 0 || v[2] > replay.MaxTicks {
		return c, false
	}
	c.at = teehist.Point{Offset: int64(off), Tick: int32(v[0]), LastCID: int32(v[1])}
	c.tick, c.settings = int32(v[2]), settings
	return c, true
}

// SetChild makes the cache build its recordings in child processes of
// the executable exe (whose main runs RunChild when IsChild), started
// with the priority SetNice gave; "" (the default) builds in this
// process. A source whose files are not *os.File, or a map larger than
// MaxChildMap, is built in this process still, and so is everything on
// Windows (a child inherits no file descriptor there). Call it before the
// first Get.
func (c *Cache) SetChild(exe string) {
	if runtime.GOOS != "windows" {
		c.child = exe
	}
}

// buildChild builds rec from f on m in a child process.
func (c *Cache) buildChild(rec *Recording, f *os.File, m *twmap.Map) error {
	return c.runChildProc(c.ctx, rec, f, m, nil)
}

// seekChild replays chunk k of rec from checkpoint ck in a child process
// (RunChild's seek), so that the replay's CPU is the child's, at the
// builds' priority; the child ends when ctx or the cache's context does.
func (c *Cache) seekChild(ctx context.Context, rec *Recording, f *os.File, ck ckptRef, k int) ([]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.ctx, cancel)()
	b := binary.AppendUvarint(nil, uint64(k)+1)
	ckb := appendCheckpoint(nil, ck)
	b = binary.AppendUvarint(b, uint64(len(ckb)))
	sink := newRecording(rec.Name, rec.hdr)
	if err := c.runChildProc(ctx, sink, f, rec.m, append(b, ckb...)); err != nil {
		return nil, err
	}
	if z, ok := sink.Chunk(k); ok {
		return z, nil
	}
	return nil, fmt.Errorf("%w: the seek sent no chunk %d", ErrChild, k)
}

// runChildProc runs a child process on the recording f and the map m,
// with extra after the map on its standard input (nil: a build; a seek),
// and applies its records to rec; the child is killed when ctx ends.
func (c *Cache) runChildProc(ctx context.Context, rec *Recording, f *os.File, m *twmap.Map, extra []byte) error {
	cmd := exec.CommandContext(ctx, c.child, ChildArg)
	// one P: the replay is sequential, and a second would only spin or
	// run the child's collections beside it
	cmd.Env = append(os.Environ(), childEnv+"=1", "GOMAXPROCS=1", childNiceEnv+"="+strconv.Itoa(c.nice))
	if c.childMem > 0 {
		cmd.Env = append(cmd.Env, childMemEnv+"="+strconv.FormatInt(c.childMem, 10))
	}
	var in []byte
	in = binary.AppendUvarint(in, uint64(len(m.Name)))
	in = append(in, m.Name...)
	in = binary.AppendUvarint(in, uint64(len(m.Data)))
	cmd.Stdin = io.MultiReader(bytes.NewReader(in), bytes.NewReader(m.Data), bytes.NewReader(extra))
	cmd.ExtraFiles = []*os.File{f}
	stderr := &limitBuffer{max: MaxChildStderr}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := c.startChild(cmd); err != nil {
		return fmt.Errorf("%w: %v", ErrChild, err)
	}
	berr := readChild(bufio.NewReaderSize(out, 64<<10), rec)
	if c.onChild != nil {
		c.onChild(cmd.Process.Pid) // before Wait: the child, or its zombie, is there
	}
	if errors.Is(berr, ErrChild) || errors.Is(berr, ErrTooLarge) {
		_ = cmd.Process.Kill() // nothing more of it is wanted
	}
	werr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(berr, ErrChild) && werr != nil:
		line, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n") // not a runtime's stack
		return fmt.Errorf("%w: %v %s", ErrChild, werr, line)
	}
	return berr
}

// startChild starts cmd from a thread of the cache's priority, which the
// child inherits (with all the threads it makes), so that it runs at that
// priority from its first instruction; the thread ends with the goroutine
// that lowered it. The main thread keeps its priority (lowerSpareThread):
// a goroutine that finds itself there holds it while another thread
// starts the child. Where the kernel refuses, the child lowers itself as
// it starts (RunChild).
func (c *Cache) startChild(cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	start := func() {
		if c.nice > 0 && !c.childSelfNice {
			_ = lowerSpareThread(c.nice)
		}
		errc <- cmd.Start()
	}
	go func() {
		if !onMainThread() {
			start()
			return
		}
		runtime.LockOSThread() // this goroutine waits on the main thread: start runs on another
		defer runtime.UnlockOSThread()
		done := make(chan struct{})
		go func() { start(); close(done) }()
		<-done
	}()
	return <-errc
}

// limitBuffer keeps the first max bytes written to it.
type limitBuffer struct {
	max int
	b   bytes.Buffer
}

func (l *limitBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (l *limitBuffer) String() string { return l.b.String() }
