//! The syntax of `run-ptx` values: element types, `--arg` forms, `--out K:FILE` and launch
//! dimensions. Parsing only; nothing here touches files or the device.

use runtime::Arg;
use std::path::PathBuf;
use std::str::FromStr;

/// The accepted `--arg` forms, appended to every `--arg` parse error and shown by `--help`.
pub const ARG_FORMS: &str = arg_forms!();

/// Element type of a scalar argument or of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
}

impl Elem {
    /// Every element type, in the order help texts list them.
    pub const ALL: [Elem; 10] = [
        Elem::U8,
        Elem::U16,
        Elem::U32,
        Elem::U64,
        Elem::I8,
        Elem::I16,
        Elem::I32,
        Elem::I64,
        Elem::F32,
        Elem::F64,
    ];

    /// The element type a `.npy` file holds values of PTX type `ty` in: its numeric type, the
    /// unsigned integer of its size for bit types (`.b32`, `.f16`, ...), none for predicates.
    pub fn of_type(ty: isa::Type) -> Option<Elem> {
        let by_size = |e: [Elem; 4]| match ty.bits() {
            8 => Some(e[0]),
            16 => Some(e[1]),
            32 => Some(e[2]),
            64 => Some(e[3]),
            _ => None,
        };
        match ty {
            isa::Type::Pred => None,
            isa::Type::F32 => Some(Elem::F32),
            isa::Type::F64 => Some(Elem::F64),
            _ if ty.is_signed() => by_size([Elem::I8, Elem::I16, Elem::I32, Elem::I64]),
            _ => by_size([Elem::U8, Elem::U16, Elem::U32, Elem::U64]),
        }
    }

    /// The name used on the command line (`f32`).
    pub fn name(self) -> &'static str {
        match self {
            Elem::U8 => "u8",
            Elem::U16 => "u16",
            Elem::U32 => "u32",
            Elem::U64 => "u64",
            Elem::I8 => "i8",
            Elem::I16 => "i16",
            Elem::I32 => "i32",
            Elem::I64 => "i64",
            Elem::F32 => "f32",
            Elem::F64 => "f64",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Elem::U8 | Elem::I8 => 1,
            Elem::U16 | Elem::I16 => 2,
            Elem::U32 | Elem::I32 | Elem::F32 => 4,
            Elem::U64 | Elem::I64 | Elem::F64 => 8,
        }
    }

    /// The NumPy dtype string (`<f4`, `|u1`).
    pub fn descr(self) -> &'static str {
        match self {
            Elem::U8 => "|u1",
            Elem::U16 => "<u2",
            Elem::U32 => "<u4",
            Elem::U64 => "<u8",
            Elem::I8 => "|i1",
            Elem::I16 => "<i2",
            Elem::I32 => "<i4",
            Elem::I64 => "<i8",
            Elem::F32 => "<f4",
            Elem::F64 => "<f8",
        }
    }

    /// The element type of a NumPy dtype string, if supported.
    pub fn from_descr(descr: &str) -> Option<Elem> {
        Elem::ALL.into_iter().find(|e| e.descr() == descr)
    }

    /// Parses a scalar of this type: integers in decimal (signed types may be negative) or
    /// `0x` hex, floats as Rust parses them (`2.5`, `-1e-3`, `inf`, `NaN`).
    pub fn parse_scalar(self, text: &str) -> Result<Arg, String> {
        fn int<T: TryFrom<i128>>(text: &str) -> Option<T> {
            let (neg, digits) = match text.strip_prefix('-') {
                Some(rest) => (true, rest),
                None => (false, text),
            };
            let (radix, digits) = match digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
                Some(hex) => (16, hex),
                None => (10, digits),
            };
            if digits.starts_with(['+', '-']) {
                return None;
            }
            let magnitude = i128::from_str_radix(digits, radix).ok()?;
            T::try_from(if neg { -magnitude } else { magnitude }).ok()
        }
        let arg = match self {
            Elem::U8 => int(text).map(Arg::U8),
            Elem::U16 => int(text).map(Arg::U16),
            Elem::U32 => int(text).map(Arg::U32),
            Elem::U64 => int(text).map(Arg::U64),
            Elem::I8 => int(text).map(Arg::I8),
            Elem::I16 => int(text).map(Arg::I16),
            Elem::I32 => int(text).map(Arg::I32),
            Elem::I64 => int(text).map(Arg::I64),
            Elem::F32 => text.parse().ok().map(Arg::F32),
            Elem::F64 => text.parse().ok().map(Arg::F64),
        };
        arg.ok_or_else(|| format!("`{text}` is not a valid {}", self.name()))
    }
}

impl FromStr for Elem {
    type Err = String;

    fn from_str(s: &str) -> Result<Elem, String> {
        Elem::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Elem::ALL.iter().map(|e| e.name()).collect();
                format!("unknown type `{s}` (types: {})", names.join(" "))
            })
    }
}

/// What one `--arg` stands for.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgKind {
    /// `TYPE:V`: a scalar passed by value.
    Scalar(Arg),
    /// `npy:PATH`: a new buffer holding a `.npy` array.
    Npy(PathBuf),
    /// `bin:TYPE:PATH`: a new buffer holding a raw little-endian file.
    Bin(Elem, PathBuf),
    /// `zeros:TYPE:COUNT`: a new zero-filled buffer.
    Zeros(Elem, usize),
    /// `@K`: the buffer of argument `K` again.
    Ref(usize),
    /// `tex:NAME` / `surf:NAME`: the handle of the `--texture` / `--surface` object NAME.
    Object { name: String, surface: bool },
}

/// One `--arg` value as written and what it means.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgSpec {
    pub text: String,
    pub kind: ArgKind,
}

impl FromStr for ArgSpec {
    type Err = String;

    /// Parses one `--arg`; errors say what is wrong, then list [`ARG_FORMS`].
    fn from_str(text: &str) -> Result<ArgSpec, String> {
        parse_arg_kind(text)
            .map(|kind| ArgSpec {
                text: text.to_string(),
                kind,
            })
            .map_err(|why| format!("{why}\naccepted forms:\n{ARG_FORMS}"))
    }
}

fn parse_arg_kind(text: &str) -> Result<ArgKind, String> {
    if let Some(k) = text.strip_prefix('@') {
        return parse_index(k)
            .map(ArgKind::Ref)
            .ok_or_else(|| format!("`@{k}`: K must be an argument number (0, 1, ...)"));
    }
    let Some((head, rest)) = text.split_once(':') else {
        return Err(format!("`{text}` has no `:`"));
    };
    let non_empty = |what: &str, s: &str| {
        if s.is_empty() {
            Err(format!("`{text}` has an empty {what}"))
        } else {
            Ok(PathBuf::from(s))
        }
    };
    match head {
        "npy" => Ok(ArgKind::Npy(non_empty("PATH", rest)?)),
        "tex" | "surf" if !rest.is_empty() => Ok(ArgKind::Object {
            name: rest.to_string(),
            surface: head == "surf",
        }),
        "bin" => {
            let (ty, path) = rest
                .split_once(':')
                .ok_or_else(|| format!("`{text}` needs bin:TYPE:PATH"))?;
            Ok(ArgKind::Bin(ty.parse()?, non_empty("PATH", path)?))
        }
        "zeros" => {
            let (ty, count) = rest
                .split_once(':')
                .ok_or_else(|| format!("`{text}` needs zeros:TYPE:COUNT"))?;
            let count = parse_index(count)
                .ok_or_else(|| format!("`{count}` is not a valid element count"))?;
            Ok(ArgKind::Zeros(ty.parse()?, count))
        }
        ty => match ty.parse::<Elem>() {
            Ok(elem) => Ok(ArgKind::Scalar(elem.parse_scalar(rest)?)),
            Err(_) => Err(format!("unknown form `{ty}:`")),
        },
    }
}

/// A non-negative decimal number.
fn parse_index(s: &str) -> Option<usize> {
    if s.starts_with('+') {
        return None;
    }
    s.parse().ok()
}

/// One `--out K:FILE.npy`.
#[derive(Clone, Debug, PartialEq)]
pub struct OutSpec {
    pub text: String,
    /// The argument number `K`.
    pub arg: usize,
    pub path: PathBuf,
}

impl FromStr for OutSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<OutSpec, String> {
        let expected = "expected K:FILE.npy, where K is the number of a buffer argument";
        let (k, path) = text.split_once(':').ok_or(expected)?;
        match (parse_index(k), path.is_empty()) {
            (Some(arg), false) => Ok(OutSpec {
                text: text.to_string(),
                arg,
                path: PathBuf::from(path),
            }),
            _ => Err(expected.to_string()),
        }
    }
}

/// One `--symbol NAME=VALUE`: a module-scope variable set before the first launch.
#[derive(Clone, Debug, PartialEq)]
pub struct SymbolSpec {
    pub text: String,
    pub name: String,
    /// A scalar (`TYPE:V`), `npy:PATH` or `bin:TYPE:PATH`.
    pub value: ArgKind,
}

impl FromStr for SymbolSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<SymbolSpec, String> {
        let (name, value) = text
            .split_once('=')
            .filter(|(name, _)| !name.is_empty())
            .ok_or("expected NAME=VALUE, VALUE one of TYPE:V, npy:PATH, bin:TYPE:PATH")?;
        let value = parse_arg_kind(value)?;
        if matches!(
            value,
            ArgKind::Zeros(..) | ArgKind::Ref(_) | ArgKind::Object { .. }
        ) {
            return Err(format!(
                "`{text}`: a variable takes TYPE:V, npy:PATH or bin:TYPE:PATH"
            ));
        }
        Ok(SymbolSpec {
            text: text.to_string(),
            name: name.to_string(),
            value,
        })
    }
}

/// One `--out-symbol NAME:FILE.npy`: a module-scope variable read after the last launch.
#[derive(Clone, Debug, PartialEq)]
pub struct OutSymbolSpec {
    pub name: String,
    pub path: PathBuf,
}

impl FromStr for OutSymbolSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<OutSymbolSpec, String> {
        match text.split_once(':') {
            Some((name, path)) if !name.is_empty() && !path.is_empty() => Ok(OutSymbolSpec {
                name: name.to_string(),
                path: PathBuf::from(path),
            }),
            _ => Err("expected NAME:FILE.npy, NAME a module-scope variable".to_string()),
        }
    }
}

/// One `--texture NAME=npy:PATH[,OPTION...]` or `--surface NAME=npy:PATH[,OPTION...]`: an
/// array (or, with `linear`, a linear buffer) holding a `.npy` array's texels, and a texture
/// or surface object over it.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectSpec {
    pub text: String,
    pub name: String,
    pub path: PathBuf,
    /// Channels per texel: the `.npy` array's last axis when more than 1.
    pub channels: u8,
    /// The first axis counts layers.
    pub layered: bool,
    /// A linear buffer (`tex1Dfetch`) instead of an array (textures only).
    pub linear: bool,
    pub sampler: runtime::texture::SamplerState,
    pub read_mode: runtime::texture::ReadMode,
}

/// The options `--texture` takes after its path, for messages and help.
pub const TEXTURE_OPTIONS: &str = "filter=point|linear, address=wrap|clamp|mirror|border, \
    normalized (normalized coordinates), read=element|normalized, channels=1|2|4, layered, linear";

impl ObjectSpec {
    /// Parses the text of `--texture` (`surface` false) or `--surface` (`surface` true).
    pub fn parse(text: &str, surface: bool) -> Result<ObjectSpec, String> {
        use runtime::texture::{AddressMode, FilterMode, ReadMode, SamplerState};
        let what = if surface { "--surface" } else { "--texture" };
        let (name, rest) = text
            .split_once('=')
            .filter(|(name, _)| !name.is_empty())
            .ok_or_else(|| format!("{what} {text}: expected NAME=npy:PATH[,OPTION...]"))?;
        let mut parts = rest.split(',');
        let path = parts
            .next()
            .and_then(|p| p.strip_prefix("npy:"))
            .filter(|p| !p.is_empty())
            .ok_or_else(|| format!("{what} {text}: the texels come from npy:PATH"))?;
        let mut spec = ObjectSpec {
            text: text.to_string(),
            name: name.to_string(),
            path: PathBuf::from(path),
            channels: 1,
            layered: false,
            linear: false,
            sampler: SamplerState {
                address: [AddressMode::Clamp; 3],
                ..SamplerState::default()
            },
            read_mode: ReadMode::ElementType,
        };
        for option in parts {
            let bad = || {
                let accepted = if surface {
                    "channels=1|2|4, layered"
                } else {
                    TEXTURE_OPTIONS
                };
                format!("{what} {text}: unknown option `{option}` (options: {accepted})")
            };
            let (key, value) = option.split_once('=').unwrap_or((option, ""));
            match (key, value, surface) {
                ("channels", "1" | "2" | "4", _) => spec.channels = value.parse().expect("digit"),
                ("layered", "", _) => spec.layered = true,
                ("linear", "", false) => spec.linear = true,
                ("normalized", "", false) => spec.sampler.normalized_coords = true,
                ("filter", "point", false) => spec.sampler.filter = FilterMode::Point,
                ("filter", "linear", false) => spec.sampler.filter = FilterMode::Linear,
                ("read", "element", false) => spec.read_mode = ReadMode::ElementType,
                ("read", "normalized", false) => spec.read_mode = ReadMode::NormalizedFloat,
                ("address", mode, false) => {
                    spec.sampler.address = [AddressMode::from_name(mode).ok_or_else(bad)?; 3];
                }
                _ => return Err(bad()),
            }
        }
        if spec.linear && spec.layered {
            return Err(format!("{what} {text}: a linear buffer has no layers"));
        }
        Ok(spec)
    }
}

/// One `--out-surface NAME:FILE.npy`: a surface's array written back after the last launch.
pub type OutSurfaceSpec = OutSymbolSpec;

/// Parses launch dimensions `X`, `X,Y` or `X,Y,Z` (missing ones are 1).
pub fn parse_dim(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err("expected X, X,Y or X,Y,Z".into());
    }
    let mut dim = [1u32; 3];
    for (d, p) in dim.iter_mut().zip(&parts) {
        *d = p
            .parse()
            .map_err(|_| format!("`{p}` is not a dimension; expected X, X,Y or X,Y,Z"))?;
    }
    Ok(dim)
}

/// Formats dimensions the way they are written on the command line (`4,1,1`).
pub fn format_dim(d: [u32; 3]) -> String {
    format!("{},{},{}", d[0], d[1], d[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &str) -> ArgKind {
        s.parse::<ArgSpec>().unwrap().kind
    }

    fn err(s: &str) -> String {
        let e = s.parse::<ArgSpec>().unwrap_err();
        e.split_once('\n').unwrap().0.to_string()
    }

    #[test]
    fn scalars() {
        assert_eq!(kind("u8:255"), ArgKind::Scalar(Arg::U8(255)));
        assert_eq!(kind("i32:-3"), ArgKind::Scalar(Arg::I32(-3)));
        assert_eq!(kind("u32:0xff"), ArgKind::Scalar(Arg::U32(255)));
        assert_eq!(kind("i8:-0x80"), ArgKind::Scalar(Arg::I8(-128)));
        assert_eq!(
            kind("u64:18446744073709551615"),
            ArgKind::Scalar(Arg::U64(u64::MAX))
        );
        assert_eq!(kind("f32:2.5"), ArgKind::Scalar(Arg::F32(2.5)));
        assert_eq!(kind("f64:-1e-3"), ArgKind::Scalar(Arg::F64(-1e-3)));
        assert_eq!(err("u8:256"), "`256` is not a valid u8");
        assert_eq!(err("u16:-1"), "`-1` is not a valid u16");
        assert_eq!(err("f32:abc"), "`abc` is not a valid f32");
    }

    #[test]
    fn buffers() {
        assert_eq!(kind("npy:a/x.npy"), ArgKind::Npy("a/x.npy".into()));
        assert_eq!(
            kind("bin:f32:x.bin"),
            ArgKind::Bin(Elem::F32, "x.bin".into())
        );
        assert_eq!(kind("zeros:u16:7"), ArgKind::Zeros(Elem::U16, 7));
        assert_eq!(kind("@12"), ArgKind::Ref(12));
        assert_eq!(err("zeros:f32"), "`zeros:f32` needs zeros:TYPE:COUNT");
        assert_eq!(
            err("zeros:f33:4"),
            "unknown type `f33` (types: u8 u16 u32 u64 i8 i16 i32 i64 f32 f64)"
        );
        assert_eq!(err("zeros:f32:-4"), "`-4` is not a valid element count");
        assert_eq!(err("npy:"), "`npy:` has an empty PATH");
        assert_eq!(err("@x"), "`@x`: K must be an argument number (0, 1, ...)");
        assert_eq!(err("float:1"), "unknown form `float:`");
        assert_eq!(err("3"), "`3` has no `:`");
    }

    #[test]
    fn dims_and_outs() {
        assert_eq!(parse_dim("4"), Ok([4, 1, 1]));
        assert_eq!(parse_dim("4,2"), Ok([4, 2, 1]));
        assert_eq!(parse_dim("4, 2, 3"), Ok([4, 2, 3]));
        assert!(parse_dim("4,2,3,1").is_err());
        assert!(parse_dim("4,x").is_err());
        let o: OutSpec = "3:out/y.npy".parse().unwrap();
        assert_eq!((o.arg, o.path), (3, PathBuf::from("out/y.npy")));
        assert!("y.npy".parse::<OutSpec>().is_err());
        assert!("x:y.npy".parse::<OutSpec>().is_err());
    }

    #[test]
    fn descrs_round_trip() {
        for e in Elem::ALL {
            assert_eq!(Elem::from_descr(e.descr()), Some(e));
            assert_eq!(e.name().parse::<Elem>(), Ok(e));
        }
    }
}
