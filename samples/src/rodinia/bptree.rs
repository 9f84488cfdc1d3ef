//! Rodinia b+tree: bundled B+ tree queries. The host inserts the input keys into a B+ tree of
//! order 256 (Rodinia's insertion code: linear search, split at `cut`, duplicates ignored), then
//! flattens it breadth-first into `knode`s (`transform_to_cuda`). Rodinia's `command.txt` runs
//! `j 6000 3000` (findRangeK: 6000 range queries of 3000 keys, one 256-thread block each) and then
//! `k 10000` (findK: 10000 single-key queries).
//!
//! Rodinia reads `mil.txt` (a count, then one million keys below one million) and draws the
//! queries with `rand()`; here the keys and the queries come from seeded [`Rng`]s with the same
//! distributions. All values are integers, compared exactly with a CPU reference that walks the
//! flattened tree the way the kernels' threads do.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Rodinia's DEFAULT_ORDER: keys per node + 1, and threads per block.
pub const ORDER: usize = 256;
/// Threads per block: `order < 1024 ? order : 1024`.
pub const THREADS: u32 = if ORDER < 1024 { ORDER as u32 } else { 1024 };
/// Bytes of a `knode`: location, indices[257], keys[257], is_leaf (padded), num_keys.
pub const KNODE_BYTES: usize = 4 + 4 * (ORDER + 1) * 2 + 4 + 4;
const RAND_MAX: i32 = i32::MAX;

/// Input keys and the two commands.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Keys in the input file (the first line of `mil.txt`); keys are drawn below it.
    pub size: usize,
    /// `j count rSize`.
    pub range_count: usize,
    pub range_size: i32,
    /// `k count`.
    pub k_count: usize,
}

/// small: 100 000 keys (a tree of height 2), `j 48 100`, `k 64`; default: Rodinia's `mil.txt` and `command.txt`
/// (10^6 keys, `j 6000 3000`, `k 10000`); large: 2^22 keys, `j 65535 3000`, `k 65535` (Rodinia's
/// maximum query count, one block per query).
pub fn params(size: Size) -> Params {
    match size {
        Size::Small => Params {
            size: 100_000,
            range_count: 48,
            range_size: 100,
            k_count: 64,
        },
        Size::Default => Params {
            size: 1_000_000,
            range_count: 6000,
            range_size: 3000,
            k_count: 10_000,
        },
        Size::Large => Params {
            size: 1 << 22,
            range_count: 65_535,
            range_size: 3000,
            k_count: 65_535,
        },
    }
}

/// A node of the pointer-based tree (Rodinia's `node`): children for inner nodes, record
/// values and the next leaf for leaves.
#[derive(Clone, Debug)]
struct Node {
    keys: Vec<i32>,
    /// Inner node: child node ids (`order` slots).
    children: Vec<usize>,
    /// Leaf: record values (`order - 1` slots).
    values: Vec<i32>,
    next_leaf: Option<usize>,
    parent: Option<usize>,
    is_leaf: bool,
    num_keys: usize,
}

/// Rodinia's B+ tree (insertion only), in an arena.
pub struct Tree {
    nodes: Vec<Node>,
    root: Option<usize>,
}

fn cut(length: usize) -> usize {
    length.div_ceil(2)
}

impl Tree {
    pub fn new() -> Tree {
        Tree {
            nodes: Vec::new(),
            root: None,
        }
    }

    fn make_node(&mut self, is_leaf: bool) -> usize {
        self.nodes.push(Node {
            keys: vec![0; ORDER - 1],
            children: if is_leaf { Vec::new() } else { vec![0; ORDER] },
            values: if is_leaf {
                vec![0; ORDER - 1]
            } else {
                Vec::new()
            },
            next_leaf: None,
            parent: None,
            is_leaf,
            num_keys: 0,
        });
        self.nodes.len() - 1
    }

    fn find_leaf(&self, key: i32) -> Option<usize> {
        let mut c = self.root?;
        while !self.nodes[c].is_leaf {
            let n = &self.nodes[c];
            let mut i = 0;
            while i < n.num_keys && key >= n.keys[i] {
                i += 1;
            }
            c = n.children[i];
        }
        Some(c)
    }

    /// The record value under `key` (`find`).
    pub fn find(&self, key: i32) -> Option<i32> {
        let c = &self.nodes[self.find_leaf(key)?];
        (0..c.num_keys)
            .find(|&i| c.keys[i] == key)
            .map(|i| c.values[i])
    }

    /// Edges from the root to a leaf (`height`).
    pub fn height(&self) -> usize {
        let mut h = 0;
        let mut c = self.root.expect("a tree");
        while !self.nodes[c].is_leaf {
            c = self.nodes[c].children[0];
            h += 1;
        }
        h
    }

    /// `insert(root, key, value)`; duplicates are ignored.
    pub fn insert(&mut self, key: i32, value: i32) {
        if self.find(key).is_some() {
            return;
        }
        let Some(_) = self.root else {
            let r = self.make_node(true);
            self.nodes[r].keys[0] = key;
            self.nodes[r].values[0] = value;
            self.nodes[r].num_keys = 1;
            self.root = Some(r);
            return;
        };
        let leaf = self.find_leaf(key).expect("a root");
        if self.nodes[leaf].num_keys < ORDER - 1 {
            let n = &mut self.nodes[leaf];
            let mut at = 0;
            while at < n.num_keys && n.keys[at] < key {
                at += 1;
            }
            for i in (at + 1..=n.num_keys).rev() {
                n.keys[i] = n.keys[i - 1];
                n.values[i] = n.values[i - 1];
            }
            n.keys[at] = key;
            n.values[at] = value;
            n.num_keys += 1;
            return;
        }
        self.insert_into_leaf_after_splitting(leaf, key, value);
    }

    fn insert_into_leaf_after_splitting(&mut self, leaf: usize, key: i32, value: i32) {
        let new_leaf = self.make_node(true);
        let mut temp_keys = vec![0; ORDER];
        let mut temp_values = vec![0; ORDER];
        let n = &self.nodes[leaf];
        let mut at = 0;
        while at < ORDER - 1 && n.keys[at] < key {
            at += 1;
        }
        let mut j = 0;
        for i in 0..n.num_keys {
            if j == at {
                j += 1;
            }
            temp_keys[j] = n.keys[i];
            temp_values[j] = n.values[i];
            j += 1;
        }
        temp_keys[at] = key;
        temp_values[at] = value;
        let split = cut(ORDER - 1);
        let n = &mut self.nodes[leaf];
        n.num_keys = split;
        n.keys[..split].copy_from_slice(&temp_keys[..split]);
        n.values[..split].copy_from_slice(&temp_values[..split]);
        let old_next = n.next_leaf.replace(new_leaf);
        let parent = n.parent;
        let nl = &mut self.nodes[new_leaf];
        let count = ORDER - split;
        nl.keys[..count].copy_from_slice(&temp_keys[split..]);
        nl.values[..count].copy_from_slice(&temp_values[split..]);
        nl.num_keys = count;
        nl.next_leaf = old_next;
        nl.parent = parent;
        let new_key = nl.keys[0];
        self.insert_into_parent(leaf, new_key, new_leaf);
    }

    fn insert_into_parent(&mut self, left: usize, key: i32, right: usize) {
        let Some(parent) = self.nodes[left].parent else {
            // insert_into_new_root
            let root = self.make_node(false);
            let r = &mut self.nodes[root];
            r.keys[0] = key;
            r.children[0] = left;
            r.children[1] = right;
            r.num_keys = 1;
            self.nodes[left].parent = Some(root);
            self.nodes[right].parent = Some(root);
            self.root = Some(root);
            return;
        };
        let p = &self.nodes[parent];
        let mut left_index = 0;
        while left_index <= p.num_keys && p.children[left_index] != left {
            left_index += 1;
        }
        if p.num_keys < ORDER - 1 {
            let p = &mut self.nodes[parent];
            for i in (left_index + 1..=p.num_keys).rev() {
                p.children[i + 1] = p.children[i];
                p.keys[i] = p.keys[i - 1];
            }
            p.children[left_index + 1] = right;
            p.keys[left_index] = key;
            p.num_keys += 1;
            return;
        }
        self.insert_into_node_after_splitting(parent, left_index, key, right);
    }

    fn insert_into_node_after_splitting(
        &mut self,
        old: usize,
        left_index: usize,
        key: i32,
        right: usize,
    ) {
        let mut temp_children = vec![0usize; ORDER + 1];
        let mut temp_keys = vec![0i32; ORDER];
        let o = &self.nodes[old];
        let mut j = 0;
        for i in 0..o.num_keys + 1 {
            if j == left_index + 1 {
                j += 1;
            }
            temp_children[j] = o.children[i];
            j += 1;
        }
        j = 0;
        for i in 0..o.num_keys {
            if j == left_index {
                j += 1;
            }
            temp_keys[j] = o.keys[i];
            j += 1;
        }
        temp_children[left_index + 1] = right;
        temp_keys[left_index] = key;
        let split = cut(ORDER);
        let new_node = self.make_node(false);
        let o = &mut self.nodes[old];
        o.num_keys = split - 1;
        o.children[..split].copy_from_slice(&temp_children[..split]);
        o.keys[..split - 1].copy_from_slice(&temp_keys[..split - 1]);
        let k_prime = temp_keys[split - 1];
        let parent = o.parent;
        let nn = &mut self.nodes[new_node];
        let count = ORDER - split;
        nn.keys[..count].copy_from_slice(&temp_keys[split..]);
        nn.children[..=count].copy_from_slice(&temp_children[split..]);
        nn.num_keys = count;
        nn.parent = parent;
        for i in 0..=count {
            let child = self.nodes[new_node].children[i];
            self.nodes[child].parent = Some(new_node);
        }
        self.insert_into_parent(old, k_prime, new_node);
    }
}

impl Default for Tree {
    fn default() -> Self {
        Tree::new()
    }
}

/// The flattened tree (`transform_to_cuda`): knodes as i32 words (location, indices, keys,
/// is_leaf, num_keys) and the records.
pub struct Flat {
    /// `KNODE_BYTES / 4` words per knode.
    pub knodes: Vec<i32>,
    pub knodes_elem: usize,
    pub records: Vec<i32>,
}

const W_INDICES: usize = 1;
const W_KEYS: usize = 1 + ORDER + 1;
const W_LEAF: usize = W_KEYS + ORDER + 1;
const W_NUM_KEYS: usize = W_LEAF + 1;
const KNODE_WORDS: usize = KNODE_BYTES / 4;

impl Flat {
    fn key(&self, node: i64, i: usize) -> i32 {
        self.knodes[node as usize * KNODE_WORDS + W_KEYS + i]
    }

    fn index(&self, node: i64, i: usize) -> i32 {
        self.knodes[node as usize * KNODE_WORDS + W_INDICES + i]
    }
}

/// Breadth-first flattening. Rodinia fills `keys[num_keys..order)` with INT_MAX and leaves
/// `keys[order]` as malloc returned it; here that word is zero.
pub fn transform(tree: &Tree, size: usize) -> Flat {
    let mut knodes = Vec::new();
    let mut records = vec![0i32; size];
    let mut queue = std::collections::VecDeque::new();
    queue.push_back(tree.root.expect("a tree"));
    let mut nodeindex = 1i32;
    let mut recordindex = 0i32;
    let mut queueindex = 0i32;
    while let Some(id) = queue.pop_front() {
        let n = &tree.nodes[id];
        let mut k = vec![0i32; KNODE_WORDS];
        k[0] = queueindex;
        queueindex += 1;
        k[W_LEAF] = i32::from(n.is_leaf);
        let num_keys = n.num_keys + 2;
        k[W_NUM_KEYS] = num_keys as i32;
        k[W_KEYS] = i32::MIN;
        k[W_KEYS + num_keys - 1] = i32::MAX;
        for i in num_keys..ORDER {
            k[W_KEYS + i] = i32::MAX;
        }
        if !n.is_leaf {
            k[W_INDICES] = nodeindex;
            nodeindex += 1;
            for i in 1..num_keys - 1 {
                k[W_KEYS + i] = n.keys[i - 1];
                queue.push_back(n.children[i - 1]);
                k[W_INDICES + i] = nodeindex;
                nodeindex += 1;
            }
            queue.push_back(n.children[num_keys - 2]);
        } else {
            k[W_INDICES] = 0;
            for i in 1..num_keys - 1 {
                k[W_KEYS + i] = n.keys[i - 1];
                records[recordindex as usize] = n.values[i - 1];
                k[W_INDICES + i] = recordindex;
                recordindex += 1;
            }
        }
        k[W_INDICES + num_keys - 1] = queueindex;
        knodes.extend_from_slice(&k);
    }
    let knodes_elem = knodes.len() / KNODE_WORDS;
    Flat {
        knodes,
        knodes_elem,
        records,
    }
}

/// The reference of findK: each query's walk as the block's threads do it.
pub fn reference_find_k(flat: &Flat, height: usize, keys: &[i32]) -> Vec<i32> {
    keys.iter()
        .map(|&key| {
            let (mut curr, mut offset) = (0i64, 0i64);
            for _ in 0..height {
                for thid in 0..ORDER {
                    if flat.key(curr, thid) <= key && flat.key(curr, thid + 1) > key {
                        let next = flat.index(offset, thid);
                        if i64::from(next) < flat.knodes_elem as i64 {
                            offset = i64::from(next);
                        }
                    }
                }
                curr = offset;
            }
            let mut ans = -1;
            for thid in 0..ORDER {
                if flat.key(curr, thid) == key {
                    ans = flat.records[flat.index(curr, thid) as usize];
                }
            }
            ans
        })
        .collect()
}

/// The reference of findRangeK: (record start, range length) per query.
pub fn reference_find_range_k(
    flat: &Flat,
    height: usize,
    start: &[i32],
    end: &[i32],
) -> (Vec<i32>, Vec<i32>) {
    let mut recstart = vec![0i32; start.len()];
    let mut reclen = vec![0i32; start.len()];
    for q in 0..start.len() {
        let (mut curr, mut offset, mut last, mut offset2) = (0i64, 0i64, 0i64, 0i64);
        for _ in 0..height {
            for thid in 0..ORDER {
                if flat.key(curr, thid) <= start[q] && flat.key(curr, thid + 1) > start[q] {
                    let next = flat.index(curr, thid);
                    if i64::from(next) < flat.knodes_elem as i64 {
                        offset = i64::from(next);
                    }
                }
                if flat.key(last, thid) <= end[q] && flat.key(last, thid + 1) > end[q] {
                    let next = flat.index(last, thid);
                    if i64::from(next) < flat.knodes_elem as i64 {
                        offset2 = i64::from(next);
                    }
                }
            }
            curr = offset;
            last = offset2;
        }
        for thid in 0..ORDER {
            if flat.key(curr, thid) == start[q] {
                recstart[q] = flat.index(curr, thid);
            }
        }
        for thid in 0..ORDER {
            if flat.key(last, thid) == end[q] {
                reclen[q] = flat.index(last, thid) - recstart[q] + 1;
            }
        }
    }
    (recstart, reclen)
}

/// `(rand() / (float)RAND_MAX) * size`, with 31 random bits from `rng`.
fn rand_key(rng: &mut Rng, size: usize) -> i32 {
    let r = (rng.next_u64() >> 33) as i32;
    (r as f32 / RAND_MAX as f32 * size as f32) as i32
}

/// The input keys (`mil.txt`): `size` keys uniform below `size`.
pub fn input_keys(size: usize) -> Vec<i32> {
    let mut rng = Rng::new(0xB7EE_0001);
    (0..size)
        .map(|_| (rng.next_u64() % size as u64) as i32)
        .collect()
}

/// Packs knodes as bytes (the `bool is_leaf` is one byte followed by padding).
fn knode_bytes(flat: &Flat) -> Vec<u8> {
    let mut out = Vec::with_capacity(flat.knodes.len() * 4);
    for (i, w) in flat.knodes.iter().enumerate() {
        if i % KNODE_WORDS == W_LEAF {
            out.extend_from_slice(&[*w as u8, 0, 0, 0]);
        } else {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    out
}

/// b+tree as a registered sample.
pub struct BPlusTree;

impl Sample for BPlusTree {
    fn name(&self) -> &'static str {
        "rodinia/b+tree"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["findRangeK", "findK"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = params(size);
        format!(
            "{} keys, order {ORDER}; commands `j {} {}`, `k {}`",
            p.size, p.range_count, p.range_size, p.k_count
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let prm = params(size);
        let mut tree = Tree::new();
        for k in input_keys(prm.size) {
            tree.insert(k, k);
        }
        let flat = transform(&tree, prm.size);
        let height = tree.height();

        let mut session = Session::new(dev);
        let module = session.load("rodinia/b+tree/b+tree.ptx")?;
        let find_range_k = module.kernel("findRangeK")?;
        let find_k = module.kernel("findK")?;
        let mut rng = Rng::new(0xB7EE_0002);

        // Command `j count rSize`.
        let count = prm.range_count;
        let mut start = vec![0i32; count];
        let mut end = vec![0i32; count];
        let size_i = prm.size as i32;
        for i in 0..count {
            start[i] = rand_key(&mut rng, prm.size);
            end[i] = start[i] + prm.range_size;
            if end[i] >= size_i {
                start[i] -= end[i] - size_i;
                end[i] = size_i - 1;
            }
        }
        let knodes_d = dev.alloc_from(&knode_bytes(&flat))?;
        let zeros = vec![0i64; count];
        let curr_d = dev.alloc_from(&zeros)?;
        let offset_d = dev.alloc_from(&zeros)?;
        let last_d = dev.alloc_from(&zeros)?;
        let offset2_d = dev.alloc_from(&zeros)?;
        let start_d = dev.alloc_from(&start)?;
        let end_d = dev.alloc_from(&end)?;
        let recstart_d = dev.alloc_from(&vec![0i32; count])?;
        let reclen_d = dev.alloc_from(&vec![0i32; count])?;
        session.launch(
            &find_range_k,
            count as u32,
            THREADS,
            0,
            &[
                Arg::I64(height as i64),
                (&knodes_d).into(),
                Arg::I64(flat.knodes_elem as i64),
                (&curr_d).into(),
                (&offset_d).into(),
                (&last_d).into(),
                (&offset2_d).into(),
                (&start_d).into(),
                (&end_d).into(),
                (&recstart_d).into(),
                (&reclen_d).into(),
            ],
        )?;
        let (want_start, want_len) = reference_find_range_k(&flat, height, &start, &end);
        let mut got = recstart_d.to_host()?;
        got.extend(reclen_d.to_host()?);
        let mut want = want_start;
        want.extend(want_len);

        // Command `k count`: Rodinia's wrapper copies everything again.
        let count = prm.k_count;
        let keys: Vec<i32> = (0..count).map(|_| rand_key(&mut rng, prm.size)).collect();
        let records_d = dev.alloc_from(&flat.records)?;
        let knodes_d = dev.alloc_from(&knode_bytes(&flat))?;
        let zeros = vec![0i64; count];
        let curr_d = dev.alloc_from(&zeros)?;
        let offset_d = dev.alloc_from(&zeros)?;
        let keys_d = dev.alloc_from(&keys)?;
        let ans_d = dev.alloc_from(&vec![-1i32; count])?;
        session.launch(
            &find_k,
            count as u32,
            THREADS,
            0,
            &[
                Arg::I64(height as i64),
                (&knodes_d).into(),
                Arg::I64(flat.knodes_elem as i64),
                (&records_d).into(),
                (&curr_d).into(),
                (&offset_d).into(),
                (&keys_d).into(),
                (&ans_d).into(),
            ],
        )?;
        got.extend(ans_d.to_host()?);
        want.extend(reference_find_k(&flat, height, &keys));
        Ok(session.finish(Validation::exact(&got, &want)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flattened tree finds what the pointer tree finds.
    #[test]
    fn flat_walk_agrees_with_tree() {
        let mut tree = Tree::new();
        let keys = input_keys(5000);
        for &k in &keys {
            tree.insert(k, k);
        }
        let flat = transform(&tree, keys.len());
        let queries: Vec<i32> = (0..2000).collect();
        let got = reference_find_k(&flat, tree.height(), &queries);
        for (q, g) in queries.iter().zip(got) {
            assert_eq!(tree.find(*q).unwrap_or(-1), g, "key {q}");
        }
    }
}
