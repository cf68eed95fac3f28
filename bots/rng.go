package bots

// rng is a small deterministic PRNG (xorshift64*) so a bot's choices depend
// only on its seed.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	if r.s == 0 {
		r.s = 0x2545f4914f6cdd1d
	}
	r.s ^= r.s >> 12
	r.s ^= r.s << 25
	r.s ^= r.s >> 27
	return r.s * 0x2545f4914f6cdd1d
}

// intn returns a value in [0, n); n must be > 0.
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// float returns a value in [0, 1).
func (r *rng) float() float32 { return float32(r.next()>>40) / float32(1<<24) }

// signed returns a value in (-1, 1).
func (r *rng) signed() float32 { return 2*r.float() - 1 }
