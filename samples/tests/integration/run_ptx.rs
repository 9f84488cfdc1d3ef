//! `warpsim run-ptx` through the real binary: a SAXPY round trip through `.npy` files
//! (bit-exact against `f32::mul_add`, shape kept), a chained launch sharing a zero-filled
//! buffer through `@K`, and the exact messages of command-line mistakes.

use npyz::WriterBuilder;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::Path;
use std::process::{Command, Output};

use crate::common::TempDir;

/// Runs `warpsim run-ptx ARGS...` from the repository root.
fn run_ptx(args: &[&str]) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .current_dir(root)
        .arg("run-ptx")
        .args(args)
        .output()
        .unwrap()
}

/// Asserts success and returns stdout.
fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "status {:?}\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Asserts failure and returns stderr.
fn fails(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "unexpected success; stdout:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn write_f32(path: &str, shape: &[u64], data: &[f32]) {
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(BufWriter::new(File::create(path).unwrap()))
        .begin_nd()
        .unwrap();
    w.extend(data.iter().copied()).unwrap();
    w.finish().unwrap();
}

/// The dtype string, shape and values of an f32 `.npy` file.
fn read_f32(path: &str) -> (String, Vec<u64>, Vec<f32>) {
    let npy = npyz::NpyFile::new(BufReader::new(File::open(path).unwrap())).unwrap();
    let npyz::DType::Plain(dtype) = npy.dtype() else {
        panic!("{path}: not a plain dtype");
    };
    let shape = npy.shape().to_vec();
    (dtype.to_string(), shape, npy.into_vec().unwrap())
}

const SAXPY: &str = "samples/saxpy/saxpy.ptx";
/// SAXPY on 1024 elements (y = 2x + y, both zero), one launch.
const SAXPY_1024: [&str; 15] = [
    SAXPY,
    "--kernel",
    "saxpy",
    "--grid",
    "4",
    "--block",
    "256",
    "--arg",
    "i32:1024",
    "--arg",
    "f32:2",
    "--arg",
    "zeros:f32:1024",
    "--arg",
    "zeros:f32:1024",
];
const FILL_SCALE: &str = "samples/tests/fixtures/run_ptx/fill_scale.ptx";

#[test]
fn saxpy_round_trip_is_bit_exact_and_keeps_the_shape() {
    let dir = TempDir::new("saxpy");
    let (x_path, y_path, out_path) = (dir.path("x.npy"), dir.path("y.npy"), dir.path("out.npy"));
    // Values whose products round, so that a separate multiply and add would differ.
    let x: Vec<f32> = (0..1000)
        .map(|i| (i as f32 * 0.37).sin() * 1e3 + 0.1)
        .collect();
    let y: Vec<f32> = (0..1000).map(|i| (i as f32 * 1.7).cos() / 3.0).collect();
    write_f32(&x_path, &[4, 250], &x);
    write_f32(&y_path, &[4, 250], &y);
    let stdout = ok(&run_ptx(&[
        SAXPY,
        "--kernel",
        "saxpy",
        "--grid",
        "4",
        "--block",
        "256",
        "--arg",
        "i32:1000",
        "--arg",
        "f32:2.5",
        "--arg",
        &format!("npy:{x_path}"),
        "--arg",
        &format!("npy:{y_path}"),
        "--out",
        &format!("3:{out_path}"),
    ]));
    assert!(
        stdout.starts_with("launch 1/1: saxpy grid 4,1,1 block 256,1,1 shared 0\n"),
        "{stdout}"
    );
    assert!(stdout.contains(" thread instructions, "), "{stdout}");
    assert!(stdout.contains(&format!("wrote argument 3 (<f4 (4, 250)) to {out_path}")));

    let (dtype, shape, got) = read_f32(&out_path);
    assert_eq!(dtype, "<f4");
    assert_eq!(shape, [4, 250]);
    let expected: Vec<f32> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| 2.5f32.mul_add(*x, *y))
        .collect();
    let mismatches = got
        .iter()
        .zip(&expected)
        .filter(|(g, e)| g.to_bits() != e.to_bits())
        .count();
    assert_eq!((got.len(), mismatches), (1000, 0));
    // The input file is untouched.
    assert_eq!(read_f32(&y_path).2, y);
}

/// Two launches of fill_scale.ptx: `fill` writes 1.5 into 1000 elements of a new buffer, then
/// `scale` (given that buffer as `@0`) multiplies all but the last by -2.
const FILL_THEN_SCALE: [&str; 25] = [
    "--kernel",
    "fill",
    "--grid",
    "4",
    "--block",
    "256",
    "--arg",
    "zeros:f32:1000",
    "--arg",
    "f32:1.5",
    "--arg",
    "u32:1000",
    "--then",
    "--kernel",
    "scale",
    "--grid",
    "8",
    "--block",
    "128",
    "--arg",
    "@0",
    "--arg",
    "f32:-2",
    "--arg",
    "u32:999",
];

const SYMBOLS: &str = "samples/tests/fixtures/run_ptx/symbols.ptx";

#[test]
fn symbols_are_set_before_the_first_launch_and_read_after_the_last() {
    let dir = TempDir::new("symbols");
    let (hits, scale) = (dir.path("hits.npy"), dir.path("scale.npy"));
    let (out_hits, out_scale) = (format!("hits:{hits}"), format!("scale:{scale}"));
    let stdout = ok(&run_ptx(&[
        SYMBOLS,
        "--kernel",
        "k",
        "--grid",
        "2",
        "--block",
        "4",
        "--symbol",
        "scale=f32:3.5",
        "--out-symbol",
        &out_hits,
        "--out-symbol",
        &out_scale,
    ]));
    assert!(
        stdout.contains("wrote variable hits (<u4 (4,))"),
        "{stdout}"
    );
    // Two CTAs of four threads each add 3 to hits[tid], from the initializer's values.
    let npy = npyz::NpyFile::new(BufReader::new(File::open(&hits).unwrap())).unwrap();
    assert_eq!(npy.into_vec::<u32>().unwrap(), [16, 26, 36, 46]);
    assert_eq!(read_f32(&scale).2, [3.5]);
    let refused = |symbol: &str| {
        fails(&run_ptx(&[
            SYMBOLS, "--kernel", "k", "--grid", "1", "--block", "1", "--symbol", symbol,
        ]))
    };
    let err = refused("nope=u32:1");
    assert!(
        err.contains("--symbol nope=u32:1: invalid value: no symbol `nope`"),
        "{err}"
    );
    let err = refused("scale=u64:1");
    assert!(
        err.contains("8 bytes at offset 0 overflow symbol `scale` of 4 bytes"),
        "{err}"
    );
}

const ADDR32: &str = "samples/tests/fixtures/run_ptx/addr32.ptx";

/// An `.address_size 32` module (the fixture's header says what it exercises): buffers go in as
/// 32-bit pointers on a device with the 32-bit memory map, functionally and under the timing
/// model alike, bit-exact against the host; device memory the 32-bit map cannot hold is an
/// error naming both.
#[test]
fn a_32_bit_module_runs_with_32_bit_pointers() {
    let dir = TempDir::new("addr32");
    let (x_path, y_path) = (dir.path("x.npy"), dir.path("y.npy"));
    let x: Vec<f32> = (0..1000).map(|i| (i as f32 * 0.37).sin() * 1e3).collect();
    let y: Vec<f32> = (0..1000).map(|i| (i as f32 * 1.7).cos() / 3.0).collect();
    write_f32(&x_path, &[1000], &x);
    write_f32(&y_path, &[1000], &y);
    let (x_arg, y_arg) = (format!("npy:{x_path}"), format!("npy:{y_path}"));
    let args = |out: &str, more: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = [
            ADDR32,
            "--kernel",
            "saxpy32",
            "--grid",
            "8",
            "--block",
            "128",
            "--arg",
            "u32:1000",
            "--arg",
            "f32:2.5",
            "--arg",
            &x_arg,
            "--arg",
            &y_arg,
            "--arg",
            "zeros:u32:1000",
            "--out",
            &format!("3:{out}-y.npy"),
            "--out",
            &format!("4:{out}-flags.npy"),
            "--out-symbol",
            &format!("hits:{out}-hits.npy"),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(more.iter().map(|s| s.to_string()));
        v
    };
    let bias = [1.0f32, 2.0, 3.0, 4.0];
    let want: Vec<u32> = (0..1000)
        .map(|i| (2.5f32 * x[i] + y[i] + bias[i % 4]).to_bits())
        .collect();
    for (name, more) in [
        ("functional", &[][..]),
        ("timed", &["--timing", "gtx480"][..]),
    ] {
        let out = dir.path(name);
        let stdout = ok(&run_strings(&args(&out, more)));
        assert!(
            stdout.contains("58288 thread instructions, 1856 warp instructions, 8 CTAs"),
            "{stdout}"
        );
        let got: Vec<u32> = read_f32(&format!("{out}-y.npy"))
            .2
            .iter()
            .map(|v| v.to_bits())
            .collect();
        assert!(got == want, "{name}: y differs");
        let u32s = |path: String| {
            let npy = npyz::NpyFile::new(BufReader::new(File::open(path).unwrap())).unwrap();
            npy.into_vec::<u32>().unwrap()
        };
        let flags: Vec<u32> = (0..1000).map(|i| 16 * i + 7).collect();
        assert_eq!(u32s(format!("{out}-flags.npy")), flags, "{name}");
        assert_eq!(u32s(format!("{out}-hits.npy")), [1000], "{name}");
    }
    let out = dir.path("big");
    assert_eq!(
        fails(&run_strings(&args(&out, &["--device-memory", "4096"]))),
        "error: invalid value: `samples/tests/fixtures/run_ptx/addr32.ptx` has `.address_size 32`, \
         but 4294967296 bytes of device memory do not fit the 32-bit memory map (global memory at \
         0x10000000): it holds at most 1610612736 bytes (1536 MiB)\n"
    );
}

const TEXTURE: &str = "samples/tests/fixtures/run_ptx/texture.ptx";

#[test]
fn textures_bind_references_and_surfaces_come_back() {
    let dir = TempDir::new("textures");
    let (image, out) = (dir.path("image.npy"), dir.path("out.npy"));
    write_f32(&image, &[2, 3], &[0.0, 10.0, 20.0, 30.0, 40.0, 50.0]);
    let texture = format!("image=npy:{image},filter=linear");
    let out_arg = format!("0:{out}");
    ok(&run_ptx(&[
        TEXTURE,
        "--kernel",
        "sample",
        "--grid",
        "1",
        "--block",
        "3,2",
        "--texture",
        &texture,
        "--arg",
        "zeros:f32:6",
        "--arg",
        "u32:3",
        "--arg",
        "f32:0.5",
        "--out",
        &out_arg,
    ]));
    // Half a texel right of each centre: the mean of a texel and its right neighbour, the
    // last one clamped to itself.
    assert_eq!(read_f32(&out).2, [5.0, 15.0, 20.0, 35.0, 45.0, 50.0]);

    let (grid, back) = (dir.path("grid.npy"), dir.path("back.npy"));
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(&[2, 3])
        .writer(BufWriter::new(File::create(&grid).unwrap()))
        .begin_nd()
        .unwrap();
    w.extend([1i32, -2, 3, 4, 5, -6]).unwrap();
    w.finish().unwrap();
    let (surface, out_surface) = (format!("g=npy:{grid}"), format!("g:{back}"));
    let stdout = ok(&run_ptx(&[
        TEXTURE,
        "--kernel",
        "double",
        "--grid",
        "1",
        "--block",
        "3,2",
        "--surface",
        &surface,
        "--arg",
        "surf:g",
        "--out-surface",
        &out_surface,
    ]));
    assert!(stdout.contains("wrote surface g (<i4 (2, 3))"), "{stdout}");
    let npy = npyz::NpyFile::new(BufReader::new(File::open(&back).unwrap())).unwrap();
    assert_eq!(npy.into_vec::<i32>().unwrap(), [2, -4, 6, 8, 10, -12]);

    let refused = |extra: &[&str]| {
        let mut args = vec![TEXTURE, "--kernel", "double", "--grid", "1", "--block", "1"];
        args.extend(extra);
        fails(&run_ptx(&args))
    };
    let cubic = format!("image=npy:{image},filter=cubic");
    let err = refused(&["--texture", &cubic, "--arg", "tex:image"]);
    assert!(
        err.contains("unknown option `filter=cubic` (options: filter=point|linear"),
        "{err}"
    );
    let err = refused(&["--surface", &surface, "--arg", "tex:g"]);
    assert!(
        err.contains("--arg tex:g: `g` is not a --texture object"),
        "{err}"
    );
    let err = refused(&["--arg", "surf:nothere"]);
    assert!(
        err.contains("--arg surf:nothere: no --surface nothere=... on the command line"),
        "{err}"
    );
    let four = format!("g=npy:{grid},channels=4");
    let err = refused(&["--surface", &four, "--arg", "surf:g"]);
    assert!(
        err.contains("channels=4 needs a last axis of 4 (the shape is (2, 3))"),
        "{err}"
    );
}

#[test]
fn chained_launches_share_a_buffer() {
    let dir = TempDir::new("chain");
    let (a, b) = (dir.path("a.npy"), dir.path("b.npy"));
    // Arguments 0-2 belong to `fill`, 3-5 to `scale`; @0 passes fill's buffer to scale, and
    // --out 3 names the same buffer as --out 0. `scale` stops one short of the end.
    let (out_a, out_b) = (format!("0:{a}"), format!("3:{b}"));
    let mut args = vec![FILL_SCALE];
    args.extend(FILL_THEN_SCALE);
    args.extend(["--out", &out_a, "--out", &out_b]);
    let stdout = ok(&run_ptx(&args));
    assert!(stdout.contains("launch 1/2: fill grid 4,1,1 block 256,1,1 shared 0\n"));
    assert!(stdout.contains("launch 2/2: scale grid 8,1,1 block 128,1,1 shared 0\n"));
    let mut expected = vec![-3.0f32; 1000];
    expected[999] = 1.5;
    for path in [&a, &b] {
        let (dtype, shape, got) = read_f32(path);
        assert_eq!((dtype.as_str(), shape.as_slice()), ("<f4", &[1000u64][..]));
        assert_eq!(got, expected);
    }
}

#[test]
fn a_timed_chain_reports_each_launch_and_the_total() {
    let dir = TempDir::new("chain_stats");
    let json = dir.path("stats.json");
    let mut args = vec![FILL_SCALE, "--timing", "gtx480", "--stats-json", &json];
    args.extend(FILL_THEN_SCALE);
    let stdout = ok(&run_ptx(&args));
    let headings: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("timing of"))
        .collect();
    assert_eq!(
        headings,
        [
            "timing of launch 1/2 (fill):",
            "timing of launch 2/2 (scale):",
            "timing of all 2 launches:"
        ]
    );
    let cycles_after = |prefix: &str| -> Vec<u64> {
        stdout
            .lines()
            .filter_map(|l| l.trim().strip_prefix(prefix))
            .map(|l| l.split(' ').next().unwrap().parse().unwrap())
            .collect()
    };
    // The total alone reads `timing (CONFIG): N cycles`, as scripts (the calibration runner)
    // expect of a chain.
    let total = cycles_after("timing (gtx480): ");
    let mut cycles = cycles_after("launch 1/2 on gtx480: ");
    cycles.extend(cycles_after("launch 2/2 on gtx480: "));
    cycles.extend(&total);
    assert_eq!(cycles.len(), 3);
    assert_eq!(
        cycles[0] + cycles[1],
        cycles[2],
        "launches run one after another"
    );
    // The JSON has the same launches and total.
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let entry = &v[0];
    assert_eq!(entry["kernels"].as_array().unwrap().len(), 2);
    assert_eq!(entry["kernels"][1]["kernel"], "scale");
    assert_eq!(entry["kernels"][0]["gpu_sim_cycle"], cycles[0]);
    assert_eq!(entry["total"]["gpu_sim_cycle"], cycles[2]);
}

/// The saxpy launch options with `args` as its `--arg`s.
fn saxpy_with(args: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [SAXPY, "--kernel", "saxpy", "--grid", "1", "--block", "32"]
        .map(String::from)
        .to_vec();
    for a in args {
        v.push("--arg".into());
        v.push(a.to_string());
    }
    v
}

fn run_strings(args: &[String]) -> Output {
    run_ptx(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

#[test]
fn unknown_kernel() {
    let out = run_ptx(&[SAXPY, "--kernel", "sax", "--grid", "1", "--block", "32"]);
    assert_eq!(
        fails(&out),
        "error: invalid value: no kernel `sax` in samples/saxpy/saxpy.ptx; kernels: saxpy\n"
    );
}

#[test]
fn wrong_argument_count() {
    let out = run_strings(&saxpy_with(&["i32:4", "f32:1", "zeros:f32:4"]));
    assert_eq!(
        fails(&out),
        "error: kernel `saxpy` takes 4 argument(s), 3 given: saxpy(.u32 saxpy_param_0, \
         .f32 saxpy_param_1, .u64 saxpy_param_2, .u64 saxpy_param_3)\n"
    );
}

#[test]
fn malformed_arg() {
    let out = run_strings(&saxpy_with(&["i32:4", "f32:2,5"]));
    assert_eq!(out.status.code(), Some(2));
    let stderr = fails(&out);
    assert!(
        stderr.starts_with(
            "error: invalid value 'f32:2,5' for '--arg <ARG>': `2,5` is not a valid f32\n\
             accepted forms:\n  \
             u8:V u16:V u32:V u64:V i8:V i16:V i32:V i64:V f32:V f64:V\n"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("\n  zeros:TYPE:COUNT   a device buffer of COUNT zero elements of TYPE\n")
    );
    // The same checks apply after --then.
    let mut args = saxpy_with(&["i32:4", "f32:1", "zeros:f32:4", "zeros:f32:4"]);
    args.extend(
        [
            "--then",
            "--kernel",
            "saxpy",
            "--grid",
            "1",
            "--block",
            "1",
            "--arg",
            "zeros:f32",
        ]
        .map(String::from),
    );
    let stderr = fails(&run_strings(&args));
    assert!(
        stderr.starts_with(
            "error: invalid value 'zeros:f32' for '--arg <ARG>': `zeros:f32` needs zeros:TYPE:COUNT\n"
        ),
        "{stderr}"
    );
}

#[test]
fn out_naming_a_scalar() {
    let dir = TempDir::new("out-scalar");
    let mut args = saxpy_with(&["i32:4", "f32:1", "zeros:f32:4", "zeros:f32:4"]);
    args.extend(["--out".into(), format!("1:{}", dir.path("y.npy"))]);
    let stderr = fails(&run_strings(&args));
    assert_eq!(
        stderr,
        format!(
            "error: --out 1:{}: argument 1 (`f32:1`) is a scalar, not a buffer \
             (npy:, bin:, zeros: or @K)\n",
            dir.path("y.npy")
        )
    );
    assert!(!Path::new(&dir.path("y.npy")).exists());
}

#[test]
fn timing_mode_prints_the_summary_and_names_bad_keys() {
    let mut args = SAXPY_1024.to_vec();
    args.extend(["--timing", "gtx480", "--set", "sm.scheduler=lrr"]);
    let stdout = ok(&run_ptx(&args));
    assert!(stdout.contains("timing (gtx480): "), "{stdout}");
    assert!(stdout.contains("occupancy: "), "{stdout}");
    let mut args = SAXPY_1024.to_vec();
    args.extend(["--timing", "gtx480", "--set", "sm.rf.bankz=8"]);
    assert_eq!(
        fails(&run_ptx(&args)).trim(),
        "error: unknown configuration key `sm.rf.bankz`"
    );
    // Without --timing the run is functional only.
    assert!(!ok(&run_ptx(&SAXPY_1024)).contains("timing ("));
}

/// Writes a version-1 `.npy` header promising `shape` (f32, C order), followed by `data`.
fn write_npy_header(path: &str, shape: &str, data: &[u8]) {
    let mut dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
    // Magic (6) + version (2) + length (2) + dictionary + newline: a multiple of 64.
    while (10 + dict.len() + 1) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((dict.len() as u16).to_le_bytes());
    bytes.extend(dict.as_bytes());
    bytes.extend(data);
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn npy_shapes_are_checked_against_memory_and_the_data_present() {
    let dir = TempDir::new("npy-shape");
    let y = dir.path("y.npy");
    let run = |x: &str| {
        let mut args = saxpy_with(&["i32:4", "f32:1"]);
        args.extend(
            [format!("npy:{x}"), "zeros:f32:4".into()]
                .into_iter()
                .flat_map(|a| ["--arg".to_string(), a]),
        );
        args.extend(["--out".into(), format!("3:{y}")]);
        fails(&run_strings(&args))
    };
    // A shape whose element count overflows: refused before any allocation.
    let huge = dir.path("huge.npy");
    write_npy_header(&huge, "(4294967296, 4294967296, 16)", &[0; 16]);
    assert_eq!(
        run(&huge),
        format!(
            "error: --arg npy:{huge}: {huge} has shape (4294967296, 4294967296, 16): more \
             elements than fit in memory\n"
        )
    );
    // A shape the data does not fill: the header's promise is not allocated up front.
    let short = dir.path("short.npy");
    write_npy_header(&short, "(1000000000000,)", &[0; 16]);
    assert_eq!(
        run(&short),
        format!(
            "error: --arg npy:{short}: {short} holds 16 data bytes; its header promises \
             4000000000000 (shape (1000000000000,))\n"
        )
    );
    assert!(!Path::new(&y).exists(), "no output written");
}

#[test]
fn a_buffer_beyond_device_memory_is_an_error_not_an_abort() {
    let out = run_strings(&saxpy_with(&[
        "i32:4",
        "f32:1",
        "zeros:f32:10000000000",
        "zeros:f32:4",
    ]));
    assert_eq!(
        fails(&out),
        "error: --arg zeros:f32:10000000000: memory allocation: out of device memory: \
         40000000000 bytes requested, 4294967296 of 4294967296 bytes free\n"
    );
}

/// `out[tid] = tid`: a block larger than the buffer stores past its end.
const STORE_TID: &str = "samples/tests/fixtures/run_ptx/store_tid.ptx";

/// A store past the end of a buffer is an error naming the buffer, and no output is written:
/// before exact checking it landed in the next allocation and the run succeeded.
#[test]
fn a_store_past_the_end_of_an_argument_fails_and_writes_nothing() {
    let dir = TempDir::new("oob");
    let out_path = dir.path("o.npy");
    let out = run_ptx(&[
        STORE_TID,
        "--kernel",
        "store_tid",
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        "zeros:u32:60",
        "--out",
        &format!("0:{out_path}"),
    ]);
    let err = fails(&out);
    assert!(
        err.starts_with(
            "error: illegal global address 0x7000000000f0 (4-byte access 0 bytes past the end of allocation #0 `--arg zeros:u32:60` of 240 bytes at 0x700000000000) in kernel `store_tid`, CTA (0,0,0), thread (60,0,0), pc 4, PTX line 13: `st.global.u32 [%rd3], %r1;`"
        ),
        "{err}"
    );
    assert!(!Path::new(&out_path).exists(), "no output after a fault");
}

/// Under `--memory-check device` the same overrun stays inside the buffer's 256-byte extent
/// and is allowed, as on a GPU; past the extent (and every other allocation) it still faults.
#[test]
fn device_memory_checking_allows_an_overrun_inside_the_extent() {
    let dir = TempDir::new("oob_device");
    let out_path = dir.path("o.npy");
    let run = |threads: &str| {
        run_ptx(&[
            STORE_TID,
            "--memory-check",
            "device",
            "--kernel",
            "store_tid",
            "--grid",
            "1",
            "--block",
            threads,
            "--arg",
            "zeros:u32:60",
            "--out",
            &format!("0:{out_path}"),
        ])
    };
    ok(&run("64"));
    let npy = npyz::NpyFile::new(BufReader::new(File::open(&out_path).unwrap())).unwrap();
    assert_eq!(npy.shape(), [60], "the output is the argument as declared");
    let values: Vec<u32> = npy.into_vec().unwrap();
    assert_eq!(values, (0..60).collect::<Vec<u32>>());
    let err = fails(&run("65"));
    assert!(
        err.starts_with("error: illegal global address 0x700000000100"),
        "{err}"
    );
}

/// A file that is not UTF-8 is refused with the line and column of the first bad byte.
#[test]
fn a_non_utf8_file_is_located_by_line_and_column() {
    let dir = TempDir::new("utf8");
    let ptx = dir.path("latin1.ptx");
    std::fs::write(&ptx, b".version 7.0\n.target sm_70 // \xe9\n").unwrap();
    let out = run_ptx(&[&ptx, "--kernel", "k", "--grid", "1", "--block", "1"]);
    assert_eq!(
        fails(&out),
        format!("error: invalid value: {ptx}:2:18: not UTF-8 text (byte 0xe9); PTX is ASCII\n")
    );
}

/// The registers per thread `run-ptx --timing` reports for a kernel (before rounding to the
/// allocation granularity, which it reports beside them).
fn occupancy_regs(stdout: &str) -> (u32, u32) {
    let line = stdout
        .lines()
        .find(|l| l.contains("occupancy: "))
        .unwrap_or_else(|| panic!("no occupancy line in\n{stdout}"));
    let numbers: Vec<u32> = line
        .split(['(', ')', ','])
        .filter_map(|part| part.split_whitespace().next()?.parse().ok())
        .collect();
    match numbers.as_slice() {
        [needed, allocated, ..] => (*needed, *allocated),
        _ => panic!("no register counts in `{line}`"),
    }
}

/// `run-ptx` reports the same registers per thread as `warpsim regs` for the same kernel (it
/// used to report the count rounded to the allocation granularity, 2 more for a kernel of
/// 10), and `--regs ptxas` and `--regs N` replace it.
#[test]
fn run_ptx_and_regs_report_the_same_registers() {
    let file = "samples/corpus/barriers.ptx";
    let kernel = "barrier_reductions";
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let table = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .current_dir(&root)
        .args(["regs", file])
        .output()
        .unwrap();
    let table = ok(&table);
    let row: Vec<&str> = table
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some(kernel))
        .unwrap_or_else(|| panic!("no row for {kernel} in\n{table}"))
        .split_whitespace()
        .collect();
    let warpsim: u32 = row[2].parse().unwrap();
    assert_ne!(warpsim % 4, 0, "a count the granularity of 4 would round");

    let launch = |regs: &str| {
        let args = [
            file,
            "--kernel",
            kernel,
            "--grid",
            "2",
            "--block",
            "128",
            "--arg",
            "zeros:u32:256",
            "--arg",
            "zeros:u32:256",
            "--timing",
            "gtx480",
            "--regs",
            regs,
        ];
        occupancy_regs(&ok(&run_ptx(&args)))
    };
    let round = |n: u32| n.next_multiple_of(4);
    assert_eq!(launch("warpsim"), (warpsim, round(warpsim)));
    assert_eq!(launch("21"), (21, 24));
    // ptxas's counts are those of the samples (samples/ptxas-registers.tsv: SAXPY's is 10).
    let mut saxpy = SAXPY_1024.to_vec();
    saxpy.extend(["--timing", "gtx480", "--regs", "ptxas"]);
    assert_eq!(occupancy_regs(&ok(&run_ptx(&saxpy))), (10, 12));
    saxpy.pop();
    saxpy.push("warpsim");
    assert_ne!(occupancy_regs(&ok(&run_ptx(&saxpy))).0, 10);
    // A file tools/ptxas_regs.py never saw (it records every .ptx under samples/).
    let unrecorded = std::env::temp_dir().join(format!("unrecorded-{}.ptx", std::process::id()));
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/run_ptx/store_tid.ptx"
        ),
        &unrecorded,
    )
    .unwrap();
    let out = run_ptx(&[
        unrecorded.to_str().unwrap(),
        "--kernel",
        "store_tid",
        "--grid",
        "1",
        "--block",
        "32",
        "--arg",
        "zeros:u32:32",
        "--timing",
        "gtx480",
        "--regs",
        "ptxas",
    ]);
    std::fs::remove_file(&unrecorded).unwrap();
    let name = unrecorded.file_name().unwrap().to_str().unwrap();
    assert_eq!(
        fails(&out).trim(),
        format!(
            "error: --regs ptxas: no count for `{name}:store_tid` in \
             samples/ptxas-registers.tsv (tools/ptxas_regs.py records the sample files; pass \
             --regs N for others)"
        )
    );
    let out = run_ptx(&[
        file, "--kernel", kernel, "--grid", "1", "--block", "32", "--timing", "gtx480", "--regs",
        "0",
    ]);
    assert!(fails(&out).contains("expected `warpsim`, `ptxas` or a count from 1 to 255"));
}

/// Outputs go through one writer (samples/src/output.rs): a symbolic link named as an output
/// has its target written and stays a link; a directory is refused by name before anything is
/// written, with the other outputs of the run left as they were.
#[cfg(unix)]
#[test]
fn outputs_follow_symlinks_and_refuse_directories() {
    let dir = TempDir::new("output_kinds");
    let (real, link) = (dir.path("real.npy"), dir.path("link.npy"));
    std::fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let json = dir.path("stats.json");
    std::os::unix::fs::symlink("stats-target.json", &json).unwrap();
    let out = format!("0:{link}");
    let mut args = vec![FILL_SCALE, "--timing", "gtx480", "--stats-json", &json];
    args.extend(FILL_THEN_SCALE);
    args.extend(["--out", &out]);
    ok(&run_ptx(&args));
    for l in [&link, &json] {
        let kind = std::fs::symlink_metadata(l).unwrap().file_type();
        assert!(kind.is_symlink(), "{l} is still a link");
    }
    let (_, shape, got) = read_f32(&real);
    assert_eq!((shape.as_slice(), got[0]), (&[1000u64][..], -3.0));
    let stats = std::fs::read_to_string(dir.path("stats-target.json")).unwrap();
    assert!(stats.contains("gpu_sim_cycle"), "{stats}");

    let folder = dir.path("folder");
    std::fs::create_dir(&folder).unwrap();
    let out = format!("0:{folder}");
    let mut args = vec![FILL_SCALE];
    args.extend(FILL_THEN_SCALE);
    args.extend(["--out", &out]);
    let err = fails(&run_ptx(&args));
    assert!(
        err.contains(&format!("cannot write {folder}: it is a directory")),
        "{err}"
    );
    assert!(std::path::Path::new(&folder).is_dir());
}
