package teehist

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Bounds of the asynchronous file writer.
const (
	// DefaultQueueLen is the number of tick chunks that may wait for the
	// writer goroutine (about 5 s of ticks at 50 Hz).
	DefaultQueueLen = 256
	// DefaultFlushInterval is the longest time written ticks stay in memory.
	DefaultFlushInterval = time.Second
	// WriteBatchSize is the buffered size at which the writer writes early.
	WriteBatchSize = 64 << 10
	// MaxChunkSize bounds one submitted chunk; larger ones are refused.
	MaxChunkSize = 4 << 20
)

// Sink is the file behind a FileWriter (an *os.File in production).
type Sink interface {
	Write(p []byte) (int, error)
	Truncate(size int64) error
	Sync() error
	Close() error
}

// FileWriter writes whole-tick chunks to a file from its own goroutine, so
// the game loop never blocks on the disk. Chunks are written only whole and
// at least once per FlushInterval, so a killed process leaves a file that
// reads to its last complete tick. After a write error (disk full) the file
// is cut back to the end of the last complete chunk and everything further
// is discarded; Failed reports it.
type FileWriter struct {
	sink     Sink
	q        chan []byte
	free     chan []byte
	bufs     atomic.Int32
	done     chan struct{}
	closeMu  sync.Once
	failed   atomic.Bool
	err      atomic.Pointer[error]
	written  atomic.Int64
	onError  func(error)
	interval time.Duration
}

// FileOptions configure a FileWriter; zero values select the defaults.
type FileOptions struct {
	QueueLen      int
	FlushInterval time.Duration
	// OnError is called once, from the writer goroutine, on the first write error.
	OnError func(error)
}

// CreateFile creates path (failing if it exists) and starts its writer.
func CreateFile(path string, o FileOptions) (*FileWriter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return NewFileWriter(f, o), nil
}

// NewFileWriter starts a writer goroutine on sink.
func NewFileWriter(sink Sink, o FileOptions) *FileWriter {
	if o.QueueLen <= 0 {
		o.QueueLen = DefaultQueueLen
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	w := &FileWriter{
		sink:     sink,
		q:        make(chan []byte, o.QueueLen),
		free:     make(chan []byte, o.QueueLen+1),
		done:     make(chan struct{}),
		onError:  o.OnError,
		interval: o.FlushInterval,
	}
	go w.run()
	return w
}

// ErrQueueFull is returned by Submit when the writer is behind.
var ErrQueueFull = errors.New("teehist: write queue full")

// ErrChunkTooLarge is returned by Submit for a chunk over MaxChunkSize.
var ErrChunkTooLarge = errors.New("teehist: chunk too large")

// Submit queues a copy of chunk (whole ticks) without blocking. It returns
// ErrQueueFull when the queue is full (the caller keeps the data and may try
// again later) and the write error once the writer has failed.
func (w *FileWriter) Submit(chunk []byte) error {
	if w.failed.Load() {
		return w.Err()
	}
	if len(chunk) > MaxChunkSize {
		return ErrChunkTooLarge
	}
	var b []byte
	select {
	case b = <-w.free:
	default:
		if int(w.bufs.Load()) >= cap(w.q) {
			return ErrQueueFull
		}
		w.bufs.Add(1)
	}
	b = append(b[:0], chunk...)
	select {
	case w.q <- b:
		return nil
	default:
		w.free <- b
		return ErrQueueFull
	}
}

// Failed reports whether a write failed.
func (w *FileWriter) Failed() bool { return w.failed.Load() }

// Err returns the first write error, or nil.
func (w *FileWriter) Err() error {
	if p := w.err.Load(); p != nil {
		return *p
	}
	return nil
}

// Written returns the number of bytes written to the file so far.
func (w *FileWriter) Written() int64 { return w.written.Load() }

// Close writes everything queued, syncs and closes the file and waits for
// the writer goroutine. It must not be called concurrently with Submit.
func (w *FileWriter) Close() error {
	w.closeMu.Do(func() { close(w.q) })
	<-w.done
	return w.Err()
}

// Done is closed when the writer goroutine has finished after Close.
func (w *FileWriter) Done() <-chan struct{} { return w.done }

func (w *FileWriter) run() {
	defer close(w.done)
	t := time.NewTicker(w.interval)
	defer t.Stop()
	var pending []byte
	flush := func() {
		if len(pending) == 0 || w.failed.Load() {
			pending = pending[:0]
			return
		}
		good := w.written.Load()
		n, err := w.sink.Write(pending)
		if err == nil && n != len(pending) {
			err = errors.New("short write")
		}
		if err != nil {
			// keep the file readable: cut the partial chunk off
			_ = w.sink.Truncate(good)
			w.fail(err)
		} else {
			w.written.Add(int64(n))
		}
		pending = pending[:0]
	}
	for {
		select {
		case b, ok := <-w.q:
			if !ok {
				flush()
				if err := w.sink.Sync(); err != nil && !w.failed.Load() {
					w.fail(err)
				}
				if err := w.sink.Close(); err != nil && !w.failed.Load() {
					w.fail(err)
				}
				return
			}
			pending = append(pending, b...)
			select {
			case w.free <- b:
			default:
			}
			if len(pending) >= WriteBatchSize {
				flush()
			}
		case <-t.C:
			flush()
		}
	}
}

func (w *FileWriter) fail(err error) {
	w.err.CompareAndSwap(nil, &err)
	if !w.failed.Swap(true) && w.onError != nil {
		w.onError(err)
	}
}
