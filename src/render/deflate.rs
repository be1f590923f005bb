//! A zlib stream (RFC 1950, deflate of RFC 1951) for a palette picture's rows,
//! with a match finder made for board pictures.
//!
//! A board picture's indices are flat areas with outlines through them: nearly
//! every byte repeats the byte before it (a run), the byte one row above, or one
//! row above shifted by a pixel or two (an outline that slants), and the rest
//! repeat an earlier piece of the same design. A general compressor finds
//! these by searching chains of earlier positions with the same few bytes,
//! deeper the higher its level; here the row's neighbours are tried first, by
//! their distances, and a short chain of earlier positions only after, so a
//! picture takes a fraction of the search for the same matches (measured in
//! `cargo bench --bench pictures`, see `docs/benchmarks.md`).
//!
//! Everything else is plain deflate: lazy matching one byte ahead, dynamic
//! Huffman codes limited to 15 bits, blocks of at most [`BLOCK_TOKENS`]
//! tokens. The output depends only on the input: the same rows give the same
//! bytes.

/// The largest distance deflate can refer back.
const WINDOW: usize = 32 * 1024;
const MIN_MATCH: usize = 3;
const MAX_MATCH: usize = 258;
const HASH_BITS: u32 = 15;

/// The neighbours tried first: the byte before, the byte above, and above
/// shifted by one and two either way.
const NEIGHBOURS: usize = 6;

/// Earlier positions with the same four bytes tried after the row's
/// neighbours.
const CHAIN: usize = 8;

/// A neighbour's match this long is not searched past in the chain (measured:
/// the same size, less time).
const NEAR_ENOUGH: usize = 64;
/// A match this long is taken without looking further.
const NICE: usize = 128;
/// A match shorter than this is compared with the match one byte later.
const LAZY: usize = 32;
/// A match enters only its first positions into the chains: a later repeat
/// seldom starts inside a match, and entering every position cost a third of
/// the time for a picture 0.5 % smaller (measured: 3 against 16).
const INSERT_MAX: usize = 3;
/// Tokens per deflate block: each block gets Huffman codes of its own.
const BLOCK_TOKENS: usize = 2048;

/// A literal byte, or a match as `MATCH | length << 16 | (distance − 1)`.
type Token = u32;
const MATCH: u32 = 1 << 31;

/// `data` as a zlib stream. `row` is the length of a picture's row in `data`
/// (its filter byte included): the distance of the byte above.
pub fn zlib(data: &[u8], row: usize) -> Vec<u8> {
    let mut out = Bits::new(data.len() / 8 + 64);
    // CMF: deflate, 32 KB window; FLG: level "default", check bits.
    out.bytes.extend_from_slice(&[0x78, 0x9c]);
    let tokens = Matcher::new(data, row).tokens();
    if tokens.is_empty() {
        write_block(&mut out, &[], true);
    }
    let blocks = tokens.chunks(BLOCK_TOKENS);
    let last = blocks.len().saturating_sub(1);
    for (i, block) in blocks.enumerate() {
        write_block(&mut out, block, i == last);
    }
    out.flush();
    out.bytes.extend_from_slice(&adler32(data).to_be_bytes());
    out.bytes
}

fn adler32(data: &[u8]) -> u32 {
    let mut adler = simd_adler32::Adler32::new();
    adler.write(data);
    adler.finish()
}

struct Matcher<'a> {
    data: &'a [u8],
    /// The row's neighbours' distances, nearest first.
    near: Vec<usize>,
    /// Each hash's latest position + 1 (0: none).
    head: Vec<u32>,
    /// The position before with the same hash, by position modulo the window.
    prev: Vec<u32>,
}

impl<'a> Matcher<'a> {
    fn new(data: &'a [u8], row: usize) -> Matcher<'a> {
        let mut near = vec![1];
        let others: [usize; NEIGHBOURS - 1] = [row, row + 1, row.wrapping_sub(1), row + 2, row.wrapping_sub(2)];
        for d in others {
            if (2..=WINDOW).contains(&d) && !near.contains(&d) {
                near.push(d);
            }
        }
        Matcher { data, near, head: vec![0; 1 << HASH_BITS], prev: vec![0; WINDOW] }
    }

    fn hash(&self, p: usize) -> usize {
        let x = u32::from_le_bytes([self.data[p], self.data[p + 1], self.data[p + 2], self.data[p + 3]]);
        (x.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
    }

    fn insert(&mut self, p: usize) {
        if p + 4 <= self.data.len() {
            let h = self.hash(p);
            self.prev[p % WINDOW] = self.head[h];
            self.head[h] = p as u32 + 1;
        }
    }

    /// How many bytes from `a` and from `b` (`a < b`) agree, up to `limit`.
    fn agree(&self, a: usize, b: usize, limit: usize) -> usize {
        let d = self.data;
        let mut n = 0;
        while n + 8 <= limit {
            let x = u64::from_le_bytes(d[a + n..a + n + 8].try_into().expect("8 bytes"));
            let y = u64::from_le_bytes(d[b + n..b + n + 8].try_into().expect("8 bytes"));
            let diff = x ^ y;
            if diff != 0 {
                return n + (diff.trailing_zeros() / 8) as usize;
            }
            n += 8;
        }
        while n < limit && d[a + n] == d[b + n] {
            n += 1;
        }
        n
    }

    /// The longest match at `p` (length, distance); length 0 when none of at
    /// least [`MIN_MATCH`] bytes is found.
    fn best(&self, p: usize) -> (usize, usize) {
        let limit = MAX_MATCH.min(self.data.len() - p);
        if limit < MIN_MATCH {
            return (0, 0);
        }
        let (mut len, mut dist) = (MIN_MATCH - 1, 0);
        let d = self.data;
        if limit >= 8 {
            // The first eight bytes against every neighbour at once: how many
            // agree is the difference's trailing zero bytes (8 when none
            // differ), with no branch per neighbour; only those agreeing on
            // all eight are followed further.
            let load = |at: usize| u64::from_le_bytes(d[at..at + 8].try_into().expect("8 bytes"));
            let here = load(p);
            let mut quick = [0usize; NEIGHBOURS];
            for (q, &n) in quick.iter_mut().zip(&self.near) {
                let agreed = ((load(p.saturating_sub(n)) ^ here).trailing_zeros() / 8) as usize;
                // A neighbour not yet a row back (the picture's first rows) agrees on nothing.
                *q = if n <= p { agreed } else { 0 };
            }
            for (&q, &n) in quick.iter().zip(&self.near) {
                let l = if q == 8 { 8 + self.agree(p - n + 8, p + 8, limit - 8) } else { q };
                if l > len {
                    (len, dist) = (l, n);
                    if len >= NICE.min(limit) {
                        return (len, dist);
                    }
                }
            }
        } else {
            // The last few bytes of the data.
            for &n in &self.near {
                if n > p {
                    continue;
                }
                let l = self.agree(p - n, p, limit);
                if l > len {
                    (len, dist) = (l, n);
                }
            }
            if len == limit {
                // Nothing longer to find (and the chain's test below reads at `len`).
                return (len, dist);
            }
        }
        if limit >= 4 && len < NEAR_ENOUGH {
            let mut next = self.head[self.hash(p)];
            for _ in 0..CHAIN {
                if next == 0 {
                    break;
                }
                let c = next as usize - 1;
                if c >= p || p - c > WINDOW {
                    break;
                }
                if d[c + len] == d[p + len] {
                    let l = self.agree(c, p, limit);
                    if l > len {
                        (len, dist) = (l, p - c);
                        if len >= NICE.min(limit) {
                            break;
                        }
                    }
                }
                next = self.prev[c % WINDOW];
            }
        }
        if dist == 0 { (0, 0) } else { (len, dist) }
    }

    fn tokens(mut self) -> Vec<Token> {
        let n = self.data.len();
        let mut tokens = Vec::with_capacity(n / 16);
        let mut p = 0;
        let mut found = None;
        while p < n {
            let (len, dist) = found.take().unwrap_or_else(|| self.best(p));
            if len < MIN_MATCH {
                tokens.push(Token::from(self.data[p]));
                self.insert(p);
                p += 1;
                continue;
            }
            if len < LAZY && p + 1 < n {
                self.insert(p);
                let later = self.best(p + 1);
                if later.0 > len {
                    tokens.push(Token::from(self.data[p]));
                    found = Some(later);
                    p += 1;
                    continue;
                }
                for q in p + 1..p + len.min(INSERT_MAX) {
                    self.insert(q);
                }
            } else {
                for q in p..p + len.min(INSERT_MAX) {
                    self.insert(q);
                }
            }
            tokens.push(MATCH | (len as u32) << 16 | (dist as u32 - 1));
            p += len;
        }
        tokens
    }
}

/// Length symbols 257–285: each one's first length and extra bits.
const LENGTH_BASE: [u16; 29] =
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA: [u8; 29] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
/// Distance symbols 0–29: each one's first distance and extra bits.
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
    8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] =
    [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
/// The order the code lengths' code lengths are written in.
const CL_ORDER: [usize; 19] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/// Each match length's symbol (less 257), by length.
const LENGTH_SYMBOL: [u8; MAX_MATCH + 1] = {
    let mut table = [0u8; MAX_MATCH + 1];
    let mut s = 0;
    let mut len = MIN_MATCH;
    while len <= MAX_MATCH {
        while s + 1 < LENGTH_BASE.len() && LENGTH_BASE[s + 1] as usize <= len {
            s += 1;
        }
        table[len] = s as u8;
        len += 1;
    }
    table
};

/// Distance symbols by `distance − 1` up to 256, and by `(distance − 1) >> 7`
/// above (as zlib looks them up: past 256 every symbol spans a multiple of 128).
const DIST_SYMBOL: [u8; 512] = {
    let mut table = [0u8; 512];
    let mut i = 0;
    while i < 512 {
        let dist = if i < 256 { i + 1 } else { ((i - 256) << 7) + 1 };
        let mut s = 0;
        while s + 1 < DIST_BASE.len() && DIST_BASE[s + 1] as usize <= dist {
            s += 1;
        }
        table[i] = s as u8;
        i += 1;
    }
    table
};

fn length_symbol(len: usize) -> usize {
    usize::from(LENGTH_SYMBOL[len])
}

fn dist_symbol(dist: usize) -> usize {
    let d = dist - 1;
    usize::from(if d < 256 { DIST_SYMBOL[d] } else { DIST_SYMBOL[256 + (d >> 7)] })
}

/// Bits written least significant first, as deflate packs them.
struct Bits {
    bytes: Vec<u8>,
    acc: u64,
    filled: u32,
}

impl Bits {
    fn new(capacity: usize) -> Bits {
        Bits { bytes: Vec::with_capacity(capacity), acc: 0, filled: 0 }
    }

    /// Writes the low `n` bits of `value` (`n` ≤ 32).
    fn put(&mut self, value: u32, n: u32) {
        self.acc |= u64::from(value) << self.filled;
        self.filled += n;
        if self.filled >= 32 {
            self.bytes.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.filled -= 32;
        }
    }

    fn flush(&mut self) {
        while self.filled > 0 {
            self.bytes.push(self.acc as u8);
            self.acc >>= 8;
            self.filled = self.filled.saturating_sub(8);
        }
        self.acc = 0;
    }
}

/// A canonical Huffman code: each symbol's length and its bits, reversed for
/// writing least significant first.
struct Code {
    lengths: Vec<u8>,
    codes: Vec<u16>,
}

impl Code {
    fn new(freqs: &[u32], max_bits: u8) -> Code {
        let lengths = code_lengths(freqs, max_bits);
        let mut count = [0u16; 16];
        for &l in &lengths {
            count[usize::from(l)] += 1;
        }
        count[0] = 0;
        let mut next = [0u16; 16];
        let mut code = 0u16;
        for bits in 1..16 {
            code = (code + count[bits - 1]) << 1;
            next[bits] = code;
        }
        let codes = lengths
            .iter()
            .map(|&l| {
                if l == 0 {
                    return 0;
                }
                let c = next[usize::from(l)];
                next[usize::from(l)] += 1;
                c.reverse_bits() >> (16 - u16::from(l))
            })
            .collect();
        Code { lengths, codes }
    }

    fn put(&self, out: &mut Bits, symbol: usize) {
        out.put(u32::from(self.codes[symbol]), u32::from(self.lengths[symbol]));
    }
}

/// Huffman code lengths for `freqs`, none longer than `max_bits`; a symbol of
/// frequency 0 gets length 0, except beside a lone symbol (see below).
fn code_lengths(freqs: &[u32], max_bits: u8) -> Vec<u8> {
    let mut lengths = vec![0u8; freqs.len()];
    let mut used: Vec<(u32, usize)> = freqs.iter().enumerate().filter(|&(_, &f)| f > 0).map(|(s, &f)| (f, s)).collect();
    match used.len() {
        0 => return lengths,
        1 => {
            // A complete code of two one-bit codes, one unused: inflaters
            // reject an incomplete code-length code.
            lengths[used[0].1] = 1;
            lengths[usize::from(used[0].1 == 0)] = 1;
            return lengths;
        }
        _ => {}
    }
    // Huffman's construction by the two-queue method over the sorted leaves.
    used.sort_unstable();
    let leaves = used.len();
    // Nodes: leaves 0..leaves, then internal nodes; parent links for depths.
    let mut weight: Vec<u64> = used.iter().map(|&(f, _)| u64::from(f)).collect();
    let mut parent = vec![0usize; 2 * leaves - 1];
    let (mut leaf, mut inner) = (0, leaves);
    let take = |weight: &Vec<u64>, leaf: &mut usize, inner: &mut usize| -> usize {
        if *leaf < leaves && (*inner >= weight.len() || weight[*leaf] <= weight[*inner]) {
            *leaf += 1;
            *leaf - 1
        } else {
            *inner += 1;
            *inner - 1
        }
    };
    while weight.len() < 2 * leaves - 1 {
        let a = take(&weight, &mut leaf, &mut inner);
        let b = take(&weight, &mut leaf, &mut inner);
        let node = weight.len();
        weight.push(weight[a] + weight[b]);
        parent[a] = node;
        parent[b] = node;
    }
    // Depths from the root (the last node) down.
    let mut depth = vec![0u32; 2 * leaves - 1];
    for node in (0..2 * leaves - 2).rev() {
        depth[node] = depth[parent[node]] + 1;
    }
    // Lengths over the limit: clamp them and restore Kraft's equality by
    // lengthening the longest codes that can take it (as zlib and miniz do).
    let max = u32::from(max_bits);
    let mut per_length = vec![0u32; 64];
    for &d in &depth[..leaves] {
        per_length[d.min(max) as usize] += 1;
    }
    let mut total: u64 = (1..=max).map(|l| u64::from(per_length[l as usize]) << (max - l)).sum();
    while total > 1 << max {
        // Move one leaf from the longest length below max down one level,
        // and one leaf at max up to it: the sum falls by one unit per step.
        per_length[max as usize] -= 1;
        let mut l = max - 1;
        while per_length[l as usize] == 0 {
            l -= 1;
        }
        per_length[l as usize] -= 1;
        per_length[l as usize + 1] += 2;
        total -= 1;
    }
    // The most frequent symbols take the shortest lengths.
    let mut l = 1;
    for &(_, symbol) in used.iter().rev() {
        while per_length[l] == 0 {
            l += 1;
        }
        per_length[l] -= 1;
        lengths[symbol] = l as u8;
    }
    lengths
}

fn write_block(out: &mut Bits, tokens: &[Token], last: bool) {
    let mut lit = [0u32; 286];
    let mut dist = [0u32; 30];
    for &t in tokens {
        if t & MATCH == 0 {
            lit[t as usize] += 1;
        } else {
            lit[257 + length_symbol((t >> 16 & 0x1ff) as usize)] += 1;
            dist[dist_symbol((t & 0xffff) as usize + 1)] += 1;
        }
    }
    lit[256] = 1;
    // Deflate wants at least one distance code described.
    if dist.iter().all(|&f| f == 0) {
        dist[0] = 1;
    }
    let lit_code = Code::new(&lit, 15);
    let dist_code = Code::new(&dist, 15);
    let hlit = 257.max(lit_code.lengths.iter().rposition(|&l| l > 0).map_or(0, |i| i + 1));
    let hdist = 1.max(dist_code.lengths.iter().rposition(|&l| l > 0).map_or(0, |i| i + 1));
    // The two codes' lengths as one sequence, run-length coded with 16–18.
    let all: Vec<u8> = lit_code.lengths[..hlit].iter().chain(&dist_code.lengths[..hdist]).copied().collect();
    let runs = run_lengths(&all);
    let mut cl_freq = [0u32; 19];
    for &(symbol, _) in &runs {
        cl_freq[usize::from(symbol)] += 1;
    }
    let cl_code = Code::new(&cl_freq, 7);
    let hclen = 4.max(CL_ORDER.iter().rposition(|&s| cl_code.lengths[s] > 0).map_or(0, |i| i + 1));

    out.put(u32::from(last), 1);
    out.put(2, 2);
    out.put((hlit - 257) as u32, 5);
    out.put((hdist - 1) as u32, 5);
    out.put((hclen - 4) as u32, 4);
    for &s in &CL_ORDER[..hclen] {
        out.put(u32::from(cl_code.lengths[s]), 3);
    }
    for &(symbol, extra) in &runs {
        cl_code.put(out, usize::from(symbol));
        match symbol {
            16 => out.put(u32::from(extra), 2),
            17 => out.put(u32::from(extra), 3),
            18 => out.put(u32::from(extra), 7),
            _ => {}
        }
    }
    for &t in tokens {
        if t & MATCH == 0 {
            lit_code.put(out, t as usize);
        } else {
            let len = (t >> 16 & 0x1ff) as usize;
            let d = (t & 0xffff) as usize + 1;
            let ls = length_symbol(len);
            lit_code.put(out, 257 + ls);
            out.put((len - usize::from(LENGTH_BASE[ls])) as u32, u32::from(LENGTH_EXTRA[ls]));
            let ds = dist_symbol(d);
            dist_code.put(out, ds);
            out.put((d - usize::from(DIST_BASE[ds])) as u32, u32::from(DIST_EXTRA[ds]));
        }
    }
    lit_code.put(out, 256);
}

/// Code lengths as the code-length alphabet's symbols with their extra bits'
/// value: 0–15 as they are, 16 repeats the previous 3–6 times, 17 and 18 are
/// 3–10 and 11–138 zeros.
fn run_lengths(lengths: &[u8]) -> Vec<(u8, u8)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lengths.len() {
        let l = lengths[i];
        let mut n = 1;
        while i + n < lengths.len() && lengths[i + n] == l {
            n += 1;
        }
        i += n;
        if l == 0 {
            while n >= 11 {
                let k = n.min(138);
                out.push((18, (k - 11) as u8));
                n -= k;
            }
            if n >= 3 {
                out.push((17, (n - 3) as u8));
                n = 0;
            }
            out.extend(std::iter::repeat_n((0, 0), n));
        } else {
            out.push((l, 0));
            n -= 1;
            while n >= 3 {
                let k = n.min(6);
                out.push((16, (k - 3) as u8));
                n -= k;
            }
            out.extend(std::iter::repeat_n((l, 0), n));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `data` compressed and inflated again by fdeflate (which checks the
    /// stream's Adler-32).
    fn round_trip(data: &[u8], row: usize) {
        let z = zlib(data, row);
        let back = fdeflate::decompress_to_vec(&z).expect("a valid zlib stream");
        assert!(back == data, "{} bytes, row {row}: not the same bytes back", data.len());
    }

    #[test]
    fn every_kind_of_input_comes_back_unchanged() {
        round_trip(&[], 1);
        round_trip(&[7], 1);
        round_trip(&[1, 2], 3);
        round_trip(&[0; 100_000], 641);
        let mut x = 0x1234_5678_9abc_def0u64;
        let mut random = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let noise: Vec<u8> = (0..70_000).map(|_| random() as u8).collect();
        round_trip(&noise, 100);
        // Few symbols, runs of every length, rows that repeat with shifts.
        let mut picture = Vec::new();
        for r in 0..300usize {
            picture.push(0);
            for c in 0..400usize {
                let edge = (c + r / 3) % 97 < 2 || (random() % 500 == 0);
                picture.push(if edge { (random() % 120) as u8 } else { ((c + r / 3) / 97) as u8 });
            }
        }
        round_trip(&picture, 401);
        let skewed: Vec<u8> = (0..50_000).map(|_| if random() % 1000 == 0 { 1 } else { 0 }).collect();
        round_trip(&skewed, 250);
    }

    #[test]
    fn every_games_picture_comes_back_under_25_kb() {
        use crate::render::png::{Parts, drawing_pixmap};
        use crate::render::svg::{Marks, board_drawing};
        use crate::rules::{Options, Seat, VariantId};
        let parts = Parts::default();
        for variant in VariantId::ALL {
            let rules = variant.rulebook(&Options::new()).unwrap();
            let view = rules.board(&rules.start()).unwrap();
            let drawing = board_drawing(&view, &Marks::default(), Seat::new(1));
            let pixmap = drawing_pixmap(&drawing, 640, &parts).unwrap();
            let indexed = crate::render::palette::quantize(&pixmap).expect("a palette");
            let (rows, w) = (indexed.data, indexed.width);
            round_trip(&rows, w + 1);
            // Issue 38: a 640-pixel picture at most 25 KB, its indices most of it.
            let z = zlib(&rows, w + 1);
            assert!(z.len() < 24_000, "{variant}: {} bytes for {} of indices", z.len(), rows.len());
        }
    }

    proptest::proptest! {
        /// Any bytes come back: pictures of a few indices in runs (the
        /// matcher's every path), at any row length.
        #[test]
        fn any_rows_come_back(
            runs in proptest::collection::vec((0u8..6, 1usize..300), 0..600),
            row in 1usize..900,
        ) {
            let data: Vec<u8> = runs.iter().flat_map(|&(b, n)| std::iter::repeat_n(b, n)).collect();
            round_trip(&data, row);
        }
    }

    #[test]
    fn symbol_tables_agree_with_the_bases() {
        for len in MIN_MATCH..=MAX_MATCH {
            let s = LENGTH_BASE.partition_point(|&b| usize::from(b) <= len) - 1;
            assert_eq!(length_symbol(len), s, "length {len}");
        }
        for dist in 1..=WINDOW {
            let s = DIST_BASE.partition_point(|&b| usize::from(b) <= dist) - 1;
            assert_eq!(dist_symbol(dist), s, "distance {dist}");
        }
    }

    #[test]
    fn code_lengths_keep_the_limit_and_kraft() {
        // Fibonacci frequencies make a maximally deep Huffman tree.
        let mut freqs = vec![1u32, 1];
        while freqs.len() < 30 {
            let n = freqs.len();
            freqs.push(freqs[n - 1] + freqs[n - 2]);
        }
        let lengths = code_lengths(&freqs, 15);
        assert!(lengths.iter().all(|&l| (1..=15).contains(&l)));
        let kraft: f64 = lengths.iter().map(|&l| 0.5f64.powi(i32::from(l))).sum();
        assert!((kraft - 1.0).abs() < 1e-12, "{kraft}");
        assert_eq!(code_lengths(&[0, 5, 0], 7), vec![1, 1, 0]);
        assert_eq!(code_lengths(&[5, 0, 0], 7), vec![1, 1, 0]);
    }

    #[test]
    fn the_same_rows_give_the_same_bytes() {
        let data: Vec<u8> = (0..20_000u32).map(|i| (i * i / 7 % 13) as u8).collect();
        assert_eq!(zlib(&data, 200), zlib(&data, 200));
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
    }
}
