package bots

// rng is a small deterministic PRNG (splitmix64) so a bot's choices depend
// only on its seed.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a value in [0, n); n must be > 0.
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// float returns a value in [0, 1).
func (r *rng) float() float32 { return float32(r.next()>>40) / float32(1<<24) }

// signed returns a value in (-1, 1).
func (r *rng) signed() float32 { return 2*r.float() - 1 }
