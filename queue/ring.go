package queue

// ring is the FIFO of keys waiting to be handed out: a circular buffer whose length is
// a power of two, so that an index wraps with a mask instead of a division.
//
// Why not a slice that is appended to and resliced from the front (client-go's
// queue.go): reslicing leaves the front of the backing array behind, so every few
// thousand keys append copies the live keys into a new array and the old one becomes
// garbage. A ring reuses its slots; it grows by doubling when full and halves when a
// quarter full, so a burst of keys does not pin its memory forever.
//
// The zero value is an empty ring. A ring is not safe for concurrent use: the queue
// guards it with its mutex.
type ring[K any] struct {
	buf  []K
	head int // index of the oldest key
	n    int // number of keys
}

// minRing is the smallest buffer a ring keeps once it has one; shrinking below it
// would only trade a few bytes for more copying.
const minRing = 64

// push appends key at the back. Amortised O(1).
func (r *ring[K]) push(key K) {
	if r.n == len(r.buf) {
		r.resize(max(2*len(r.buf), minRing))
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = key
	r.n++
}

// pop removes and returns the key at the front; the ring must not be empty. Amortised
// O(1).
func (r *ring[K]) pop() K {
	var zero K
	key := r.buf[r.head]
	r.buf[r.head] = zero // let the garbage collector have what the key points to
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	if len(r.buf) > minRing && r.n <= len(r.buf)/4 {
		r.resize(len(r.buf) / 2)
	}
	return key
}

// len returns the number of keys in the ring.
func (r *ring[K]) len() int { return r.n }

// resize moves the keys, oldest first, into a new buffer of size keys (a power of
// two, at least r.n).
func (r *ring[K]) resize(size int) {
	buf := make([]K, size)
	if r.n > 0 {
		tail := copy(buf, r.buf[r.head:min(r.head+r.n, len(r.buf))])
		copy(buf[tail:], r.buf[:r.n-tail])
	}
	r.buf, r.head = buf, 0
}
