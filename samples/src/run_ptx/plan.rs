//! Resolving argument numbers: which buffers to create, which argument passes which buffer,
//! and which buffers `--out` writes. Pure bookkeeping; errors name the offending option.
//!
//! Every `--arg` has a number, 0, 1, 2, ... in order of appearance on the whole command line
//! (counting on across `--then`). `npy:`, `bin:` and `zeros:` create a new buffer; `@K`
//! passes the buffer of an earlier argument `K` again; `--out K:FILE` writes that buffer.

use super::spec::{ArgKind, ArgSpec, OutSpec};
use runtime::Arg;

/// What an argument passes once `@K` is resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum Slot {
    Scalar(Arg),
    /// The buffer with this index in [`Plan::buffers`].
    Buffer(usize),
    /// The handle of the `--texture` (or, with `surface`, `--surface`) object named so.
    Object {
        name: String,
        surface: bool,
    },
}

/// The resolved command line.
#[derive(Debug, PartialEq)]
pub struct Plan<'a> {
    /// One slot per argument, in argument-number order.
    pub slots: Vec<Slot>,
    /// The argument that creates each buffer (`npy:`, `bin:` or `zeros:`).
    pub buffers: Vec<&'a ArgSpec>,
    /// For each `--out`: the buffer index.
    pub outs: Vec<(usize, &'a OutSpec)>,
}

/// Resolves `args` (all launches' `--arg`s in order) and `outs`.
pub fn resolve<'a>(args: &[&'a ArgSpec], outs: &'a [OutSpec]) -> Result<Plan<'a>, String> {
    let mut plan = Plan {
        slots: Vec::with_capacity(args.len()),
        buffers: Vec::new(),
        outs: Vec::with_capacity(outs.len()),
    };
    for (i, a) in args.iter().enumerate() {
        let slot = match &a.kind {
            ArgKind::Scalar(v) => Slot::Scalar(v.clone()),
            ArgKind::Object { name, surface } => Slot::Object {
                name: name.clone(),
                surface: *surface,
            },
            ArgKind::Npy(_) | ArgKind::Bin(..) | ArgKind::Zeros(..) => {
                plan.buffers.push(a);
                Slot::Buffer(plan.buffers.len() - 1)
            }
            &ArgKind::Ref(k) => {
                let what = format!("--arg {} (argument {i})", a.text);
                if k >= i {
                    return Err(format!("{what}: @K must name an earlier argument"));
                }
                Slot::Buffer(buffer_of(&plan.slots, args, k, &what)?)
            }
        };
        plan.slots.push(slot);
    }
    for (i, o) in outs.iter().enumerate() {
        let what = format!("--out {}", o.text);
        // Two outputs to one file: the second would silently overwrite the first.
        let same = |p: &std::path::Path| std::path::absolute(p).unwrap_or_else(|_| p.into());
        if let Some(first) = outs[..i].iter().find(|f| same(&f.path) == same(&o.path)) {
            return Err(format!(
                "{what}: `{}` is already the output of --out {}",
                o.path.display(),
                first.text
            ));
        }
        plan.outs
            .push((buffer_of(&plan.slots, args, o.arg, &what)?, o));
    }
    Ok(plan)
}

/// The buffer argument `k` passes, given the arguments resolved so far.
fn buffer_of(slots: &[Slot], args: &[&ArgSpec], k: usize, what: &str) -> Result<usize, String> {
    match slots.get(k) {
        Some(&Slot::Buffer(b)) => Ok(b),
        Some(Slot::Object { .. }) => Err(format!(
            "{what}: argument {k} (`{}`) is a texture or surface, not a buffer (use \
             --out-surface NAME:FILE for a surface)",
            args[k].text
        )),
        Some(Slot::Scalar(_)) => Err(format!(
            "{what}: argument {k} (`{}`) is a scalar, not a buffer (npy:, bin:, zeros: or @K)",
            args[k].text
        )),
        None => Err(format!(
            "{what}: there is no argument {k}; the command line has {} (numbered from 0)",
            args.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs(texts: &[&str]) -> Vec<ArgSpec> {
        texts.iter().map(|t| t.parse().unwrap()).collect()
    }

    fn outs(texts: &[&str]) -> Vec<OutSpec> {
        texts.iter().map(|t| t.parse().unwrap()).collect()
    }

    #[test]
    fn buffers_are_shared_through_references() {
        let a = specs(&["zeros:f32:8", "f32:1.5", "npy:x.npy", "@0", "@3", "f32:2"]);
        let o = outs(&["4:y.npy", "2:x2.npy"]);
        let refs: Vec<_> = a.iter().collect();
        let plan = resolve(&refs, &o).unwrap();
        assert_eq!(
            plan.slots,
            [
                Slot::Buffer(0),
                Slot::Scalar(Arg::F32(1.5)),
                Slot::Buffer(1),
                Slot::Buffer(0),
                Slot::Buffer(0),
                Slot::Scalar(Arg::F32(2.0)),
            ]
        );
        assert_eq!(plan.buffers.len(), 2);
        assert_eq!(
            plan.outs.iter().map(|(b, _)| *b).collect::<Vec<_>>(),
            [0, 1]
        );
    }

    #[test]
    fn bad_references_are_named() {
        let a = specs(&["i32:4", "@0"]);
        let refs: Vec<_> = a.iter().collect();
        assert_eq!(
            resolve(&refs, &[]).unwrap_err(),
            "--arg @0 (argument 1): argument 0 (`i32:4`) is a scalar, not a buffer (npy:, bin:, zeros: or @K)"
        );
        let a = specs(&["zeros:u8:1", "@1"]);
        let refs: Vec<_> = a.iter().collect();
        assert_eq!(
            resolve(&refs, &[]).unwrap_err(),
            "--arg @1 (argument 1): @K must name an earlier argument"
        );
        let o = outs(&["5:y.npy"]);
        assert_eq!(
            resolve(&refs[..1], &o).unwrap_err(),
            "--out 5:y.npy: there is no argument 5; the command line has 1 (numbered from 0)"
        );
    }

    #[test]
    fn two_outputs_to_one_file_are_refused() {
        let a = specs(&["zeros:f32:8", "zeros:f32:8"]);
        let refs: Vec<_> = a.iter().collect();
        let o = outs(&["0:y.npy", "1:./y.npy"]);
        assert_eq!(
            resolve(&refs, &o).unwrap_err(),
            "--out 1:./y.npy: `./y.npy` is already the output of --out 0:y.npy"
        );
    }
}
