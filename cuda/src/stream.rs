//! Streams and events. Every operation runs when it is submitted, in order, so a stream is
//! always idle, a wait is always satisfied and a callback runs at once. An event records the
//! device's clock: in timing mode the simulated cycles of every launch so far, so
//! `cuEventElapsedTime` gives simulated time (cycles / the preset's core clock); in
//! functional mode, which has no simulated time, the host's clock.

use crate::error::{Error, Result, guard};
use crate::ffi::{handle, handle_id, write, write_opt};
use crate::state::{Driver, EventEntry, Stamp, StreamEntry, with};
use crate::types::{CUresult, Handle, event_flags, status, stream};
use std::ffi::{c_float, c_int, c_uint, c_void};
use std::time::Instant;

/// Checks a stream handle: NULL, `CU_STREAM_LEGACY`, `CU_STREAM_PER_THREAD` or a live stream.
pub fn check_stream(d: &Driver, h: Handle) -> Result {
    let id = handle_id(h);
    if id == 0
        || id == stream::LEGACY as u64
        || id == stream::PER_THREAD as u64
        || d.streams.contains_key(&id)
    {
        Ok(())
    } else {
        Err(Error::code(status::INVALID_HANDLE))
    }
}

fn create(out: *mut Handle, flags: c_uint, priority: c_int) -> Result {
    with(|d| {
        let ctx = d.current()?;
        if out.is_null() || flags > 1 {
            return Err(Error::code(status::INVALID_VALUE));
        }
        let id = d.new_id();
        d.streams.insert(
            id,
            StreamEntry {
                ctx,
                flags,
                priority,
            },
        );
        write(out, handle(id))
    })
}

/// `cuStreamCreate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamCreate(out: *mut Handle, flags: c_uint) -> CUresult {
    guard("cuStreamCreate", || create(out, flags, 0))
}

/// `cuStreamCreateWithPriority`: one priority level, so every priority is 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamCreateWithPriority(
    out: *mut Handle,
    flags: c_uint,
    _priority: c_int,
) -> CUresult {
    guard("cuStreamCreateWithPriority", || create(out, flags, 0))
}

/// `cuStreamDestroy_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamDestroy_v2(h: Handle) -> CUresult {
    guard("cuStreamDestroy_v2", || {
        with(|d| {
            d.streams
                .remove(&handle_id(h))
                .map(|_| ())
                .ok_or_else(|| Error::code(status::INVALID_HANDLE))
        })
    })
}

/// A stream operation with nothing left to wait for.
fn idle(h: Handle) -> Result {
    with(|d| {
        d.current()?;
        check_stream(d, h)
    })
}

/// `cuStreamSynchronize`: complete already.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamSynchronize(h: Handle) -> CUresult {
    guard("cuStreamSynchronize", || idle(h))
}

/// `cuStreamQuery`: complete already.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamQuery(h: Handle) -> CUresult {
    guard("cuStreamQuery", || idle(h))
}

/// `cuStreamWaitEvent`: the event's work is done.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamWaitEvent(h: Handle, event: Handle, _flags: c_uint) -> CUresult {
    guard("cuStreamWaitEvent", || {
        with(|d| {
            check_stream(d, h)?;
            event_entry(d, event).map(|_| ())
        })
    })
}

fn stream_entry(d: &Driver, h: Handle) -> Result<Option<&StreamEntry>> {
    check_stream(d, h)?;
    Ok(d.streams.get(&handle_id(h)))
}

/// `cuStreamGetFlags`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetFlags(h: Handle, flags: *mut c_uint) -> CUresult {
    guard("cuStreamGetFlags", || {
        with(|d| write(flags, stream_entry(d, h)?.map_or(0, |s| s.flags)))
    })
}

/// `cuStreamGetPriority`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetPriority(h: Handle, priority: *mut c_int) -> CUresult {
    guard("cuStreamGetPriority", || {
        with(|d| write(priority, stream_entry(d, h)?.map_or(0, |s| s.priority)))
    })
}

/// `cuStreamGetId`: the handle's number (0, 1 and 2 for the special streams).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetId(h: Handle, id: *mut u64) -> CUresult {
    guard("cuStreamGetId", || {
        with(|d| {
            check_stream(d, h)?;
            write(id, handle_id(h))
        })
    })
}

fn stream_ctx(d: &Driver, h: Handle) -> Result<u64> {
    match stream_entry(d, h)? {
        Some(s) => Ok(s.ctx),
        None => d.current(),
    }
}

/// `cuStreamGetCtx`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetCtx(h: Handle, ctx: *mut Handle) -> CUresult {
    guard("cuStreamGetCtx", || {
        with(|d| write(ctx, handle(stream_ctx(d, h)?)))
    })
}

/// `cuStreamGetCtx_v2`: no green contexts.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetCtx_v2(
    h: Handle,
    ctx: *mut Handle,
    green: *mut Handle,
) -> CUresult {
    guard("cuStreamGetCtx_v2", || {
        with(|d| {
            write(ctx, handle(stream_ctx(d, h)?))?;
            write_opt(green, std::ptr::null_mut())
        })
    })
}

/// `CUstreamCallback`.
type StreamCallback = unsafe extern "C" fn(Handle, CUresult, *mut c_void);
/// `CUhostFn`.
type HostFn = unsafe extern "C" fn(*mut c_void);

/// `cuStreamAddCallback`: the stream is idle, so the callback runs now (outside the driver's
/// lock, so it may call the driver).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamAddCallback(
    h: Handle,
    callback: Option<StreamCallback>,
    data: *mut c_void,
    _flags: c_uint,
) -> CUresult {
    guard("cuStreamAddCallback", || {
        idle(h)?;
        let cb = callback.ok_or_else(|| Error::code(status::INVALID_VALUE))?;
        // SAFETY: the caller hands a callback of this type for this call.
        unsafe { cb(h, status::SUCCESS, data) };
        Ok(())
    })
}

/// `cuLaunchHostFunc`: runs now, as `cuStreamAddCallback`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLaunchHostFunc(
    h: Handle,
    f: Option<HostFn>,
    data: *mut c_void,
) -> CUresult {
    guard("cuLaunchHostFunc", || {
        idle(h)?;
        let f = f.ok_or_else(|| Error::code(status::INVALID_VALUE))?;
        // SAFETY: the caller hands a host function of this type for this call.
        unsafe { f(data) };
        Ok(())
    })
}

fn event_entry(d: &Driver, h: Handle) -> Result<&EventEntry> {
    d.events
        .get(&handle_id(h))
        .ok_or_else(|| Error::code(status::INVALID_HANDLE))
}

/// `cuEventCreate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventCreate(out: *mut Handle, flags: c_uint) -> CUresult {
    guard("cuEventCreate", || {
        with(|d| {
            let ctx = d.current()?;
            if out.is_null() || flags > 7 {
                return Err(Error::code(status::INVALID_VALUE));
            }
            let id = d.new_id();
            d.events.insert(
                id,
                EventEntry {
                    ctx,
                    flags,
                    recorded: None,
                },
            );
            write(out, handle(id))
        })
    })
}

fn record(event: Handle, h: Handle) -> Result {
    with(|d| {
        check_stream(d, h)?;
        let stamp = Stamp {
            cycles: d.cycles,
            host: Instant::now(),
        };
        let e = d
            .events
            .get_mut(&handle_id(event))
            .ok_or_else(|| Error::code(status::INVALID_HANDLE))?;
        e.recorded = Some(stamp);
        Ok(())
    })
}

/// `cuEventRecord`: the clock now (all work submitted so far is complete).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventRecord(event: Handle, h: Handle) -> CUresult {
    guard("cuEventRecord", || record(event, h))
}

/// `cuEventRecordWithFlags`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventRecordWithFlags(
    event: Handle,
    h: Handle,
    _flags: c_uint,
) -> CUresult {
    guard("cuEventRecordWithFlags", || record(event, h))
}

/// `cuEventQuery`: complete.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventQuery(event: Handle) -> CUresult {
    guard("cuEventQuery", || {
        with(|d| event_entry(d, event).map(|_| ()))
    })
}

/// `cuEventSynchronize`: complete.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventSynchronize(event: Handle) -> CUresult {
    guard("cuEventSynchronize", || {
        with(|d| event_entry(d, event).map(|_| ()))
    })
}

/// `cuEventDestroy_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventDestroy_v2(event: Handle) -> CUresult {
    guard("cuEventDestroy_v2", || {
        with(|d| {
            d.events
                .remove(&handle_id(event))
                .map(|_| ())
                .ok_or_else(|| Error::code(status::INVALID_HANDLE))
        })
    })
}

/// Milliseconds from `start` to `end`.
fn elapsed(ms: *mut c_float, start: Handle, end: Handle) -> Result {
    with(|d| {
        let stamp = |h: Handle| -> Result<Stamp> {
            let e = event_entry(d, h)?;
            if e.flags & event_flags::DISABLE_TIMING != 0 {
                return Err(Error::new(
                    status::INVALID_HANDLE,
                    "an event created with CU_EVENT_DISABLE_TIMING has no time",
                ));
            }
            e.recorded.ok_or_else(|| {
                Error::new(status::INVALID_HANDLE, "the event has not been recorded")
            })
        };
        let (a, b) = (stamp(start)?, stamp(end)?);
        let millis = match d.settings.mode {
            crate::config::Mode::Functional => {
                let forward = b.host.saturating_duration_since(a.host).as_secs_f64();
                let backward = a.host.saturating_duration_since(b.host).as_secs_f64();
                (forward - backward) * 1e3
            }
            crate::config::Mode::Timing(_) => {
                let cycles = b.cycles as f64 - a.cycles as f64;
                cycles / (f64::from(d.settings.gpu.gpu.clock_mhz) * 1e3)
            }
        };
        write(ms, millis as c_float)
    })
}

/// `cuEventElapsedTime`: simulated milliseconds in timing mode, host milliseconds in
/// functional mode.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventElapsedTime(
    ms: *mut c_float,
    start: Handle,
    end: Handle,
) -> CUresult {
    guard("cuEventElapsedTime", || elapsed(ms, start, end))
}

/// `cuEventElapsedTime_v2`: as `cuEventElapsedTime`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventElapsedTime_v2(
    ms: *mut c_float,
    start: Handle,
    end: Handle,
) -> CUresult {
    guard("cuEventElapsedTime_v2", || elapsed(ms, start, end))
}
