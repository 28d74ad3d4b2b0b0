// Package delta stores a byte string as its difference from a reference: runs
// copied from the reference, and the bytes it does not hold, as literals. It
// is how a cache keeps objects that are alike (the pods of one Deployment
// differ in a name, a uid, a few values) in a few percent of their size, and
// reads one back in about the time of a copy.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	^^^^^^^^^ (inside: internal to apiclient, behind Object.Pack)
//
// # Format
//
// Never on a wire or a disk, only in memory, so it need not be stable:
//
//	uvarint(len of the whole)
//	{ uvarint(n) n literal bytes  uvarint(m)  [uvarint(offset) if m > 0] }…
//
// Each step appends n literal bytes, then m bytes copied from the reference at
// offset. Steps follow one another until the whole is written.
//
// # Guarantees
//
//   - Decoding what AppendEncoded wrote gives b back, for any reference and
//     b (FuzzRoundTrip).
//   - AppendEncoded costs one pass over b with a hash look-up per position
//     not covered by a copy (2.5 µs for a 5.2 KB pod, BenchmarkEncode);
//     AppendDecoded is copying (0.12 µs, BenchmarkAppendDecoded). Both
//     allocate only what they append to. An Index is built once (a pass
//     over the reference) and is safe for concurrent use, as a Reference is.
//   - What was encoded keeps only the Reference alive (the bytes), not the
//     Index (four times their size), which encoding alone needs.
//   - Decoding bytes AppendEncoded did not make is an error, never a panic or
//     a read outside ref.
//
// # Compared with compress/flate
//
// flate's compressor takes a dictionary only from level 2, and resetting one
// clears half a megabyte of tables: tens of microseconds per object, more than
// decoding the object cost. Here there is no entropy coding and no window: a
// match is found by a hash of four bytes and extended both ways, and decoding
// is copying. Objects that are alike shrink nearly as far as flate would take
// them: 10,000 pods' bodies of 2,223 bytes, against the first, to 135 bytes
// on average (flate at level 2 with the same dictionary: about 80); objects
// that are not alike, much less (flate would still halve them).
package delta
