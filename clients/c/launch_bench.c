/* launch_bench: runs kernel launches described in a manifest through the CUDA driver API and
 * writes what the device and its events report as JSON. The same source builds against the
 * real libcuda (-lcuda) and against libwarpsim_cuda.so (-lwarpsim_cuda); tools/hardware.py
 * writes the manifests (the microbenchmarks of tools/microbench.py and the validation corpus of
 * tools/gpgpusim/launches/corpus.toml) and reads the results.
 *
 *   gcc -std=c99 -O2 -Wall -Wextra -Werror -o launch_bench launch_bench.c -lcuda
 *   ./launch_bench --info OUT.json            the device's name and properties
 *   ./launch_bench MANIFEST OUT.json          run the manifest's launches
 *
 * The manifest is line-based; `#` starts a comment; a PATH runs to the end of its line:
 *
 *   launch NAME           a launch block: one module, its buffers, one or more kernel steps
 *   ptx PATH              the module (PTX text, loaded with cuModuleLoadDataEx)
 *   repeat N              repetitions of the block (default 1)
 *   flush_l2              before each repetition, write a scratch buffer twice the L2's size
 *   symbol NAME PATH      before each repetition, the file's bytes go to module variable NAME
 *   kernel NAME           a step: a launch of kernel NAME, timed by its own pair of events
 *   grid X [Y [Z]]        the step's grid (default 1 1 1)
 *   block X [Y [Z]]       the step's block (default 1 1 1)
 *   shared BYTES          the step's dynamic shared memory (default 0)
 *   arg file PATH         a device buffer holding the file's bytes
 *   arg zeros BYTES       a device buffer of zero bytes
 *   arg alias K           the buffer of argument K again (arguments are numbered 0, 1, ...
 *                         across the block's steps, as run-ptx numbers them across --then)
 *   arg TYPE VALUE        a scalar: u8 u16 u32 u64 i8 i16 i32 i64 (decimal or 0x hex), f32 f64
 *   out K PATH            after the last repetition, argument K's buffer is written to PATH
 *   end                   closes the block
 *
 * Before every repetition the buffers get their initial bytes again (file contents, zeros) and
 * the symbols their values, so every repetition runs the same launch and the buffers written
 * out are those of one run of the block. Events bracket each step's launch on the default
 * stream; the copies are outside them. Every failing CUDA call is reported with its name,
 * the error's name and string, and the program exits with status 1. */
#include "warpsim_cuda.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 8192

static const char *context = "";

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("launch_bench: ", stderr);
    if (context[0])
        fprintf(stderr, "%s: ", context);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void check(CUresult r, const char *call) {
    if (r == CUDA_SUCCESS)
        return;
    const char *name = NULL, *text = NULL;
    if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
        name = "unknown error";
    if (cuGetErrorString(r, &text) != CUDA_SUCCESS || !text)
        text = "";
    die("%s failed: %s (%d): %s", call, name, r, text);
}

/* The call's text names the entry point: `cuModuleGetFunction(&f, m, name)`. */
#define CHECK(call) check((call), #call)

static void *xmalloc(size_t n) {
    void *p = calloc(1, n ? n : 1);
    if (!p)
        die("out of host memory (%zu bytes)", n);
    return p;
}

static char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}

static char *read_file(const char *what, const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open %s `%s`: %s", what, path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *data = xmalloc(cap + 1);
    for (;;) {
        size_t got = fread(data + n, 1, cap - n, f);
        n += got;
        if (n < cap) {
            if (ferror(f))
                die("cannot read %s `%s`: %s", what, path, strerror(errno));
            break;
        }
        char *bigger = realloc(data, cap * 2 + 1);
        if (!bigger)
            die("out of host memory reading `%s`", path);
        data = bigger;
        cap *= 2;
    }
    fclose(f);
    data[n] = 0;
    *len = n;
    return data;
}

static void write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0)
        die("cannot write `%s`: %s", path, strerror(errno));
}

/* ---- the manifest ----------------------------------------------------------------------- */

enum arg_kind { ARG_FILE, ARG_ZEROS, ARG_ALIAS, ARG_SCALAR };

struct arg {
    enum arg_kind kind;
    char *path;        /* ARG_FILE */
    size_t bytes;      /* ARG_FILE (once read), ARG_ZEROS */
    char *init;        /* the initial bytes of a buffer */
    size_t alias;      /* ARG_ALIAS: the argument named */
    unsigned char scalar[8];
    size_t scalar_size;
    CUdeviceptr dptr;  /* a buffer's device address (an alias: its target's) */
};

struct step {
    char *kernel;
    unsigned grid[3], block[3], shared;
    size_t first_arg, nargs;
    CUfunction function;
    float *ms;         /* one a repetition */
};

struct symbol {
    char *name, *path, *data;
    size_t len;
};

struct out {
    size_t arg;
    char *path;
};

struct block {
    char *name, *ptx;
    int repeat, flush_l2;
    struct step *steps;
    size_t nsteps;
    struct arg *args;
    size_t nargs;
    struct symbol *symbols;
    size_t nsymbols;
    struct out *outs;
    size_t nouts;
};

#define PUSH(array, count) \
    ((array) = realloc((array), ((count) + 1) * sizeof *(array)), \
     (array) ? memset(&(array)[(count)], 0, sizeof *(array)), &(array)[(count)++] \
             : (die("out of host memory"), (void *)0))

static const char *manifest_path;
static int manifest_line;

static void bad(const char *fmt, const char *detail) {
    fprintf(stderr, "launch_bench: %s:%d: ", manifest_path, manifest_line);
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
    exit(1);
}

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

/* The next whitespace-separated word of *s (NULL at the end); *s moves past it. */
static char *word(char **s) {
    char *p = *s;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return NULL;
    char *start = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    if (*p)
        *p++ = 0;
    *s = p;
    return start;
}

static unsigned long long parse_uint(const char *text, unsigned long long max) {
    char *end;
    if (!text || text[0] == '-')
        bad("expected a non-negative integer, got `%s`", text ? text : "nothing");
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || *end || end == text || v > max)
        bad("bad or out-of-range integer `%s`", text);
    return v;
}

static long long parse_int(const char *text, long long min, long long max) {
    char *end;
    if (!text)
        bad("expected an integer, got %s", "nothing");
    errno = 0;
    long long v = strtoll(text, &end, 0);
    if (errno || *end || end == text || v < min || v > max)
        bad("bad or out-of-range integer `%s`", text);
    return v;
}

static void parse_dims(char *rest, unsigned dims[3]) {
    dims[0] = dims[1] = dims[2] = 1;
    for (int i = 0; i < 3; i++) {
        char *w = word(&rest);
        if (!w) {
            if (i == 0)
                bad("expected X [Y [Z]]%s", "");
            break;
        }
        dims[i] = (unsigned)parse_uint(w, 0xffffffffu);
    }
    if (word(&rest))
        bad("more than three dimensions%s", "");
}

static void parse_scalar(struct arg *a, const char *type, const char *value) {
    a->kind = ARG_SCALAR;
    if (!value)
        bad("the scalar `%s` has no value", type);
    if (!strcmp(type, "f32")) {
        char *end;
        float f = strtof(value, &end);
        if (*end || end == value)
            bad("bad f32 `%s`", value);
        memcpy(a->scalar, &f, 4);
        a->scalar_size = 4;
        return;
    }
    if (!strcmp(type, "f64")) {
        char *end;
        double d = strtod(value, &end);
        if (*end || end == value)
            bad("bad f64 `%s`", value);
        memcpy(a->scalar, &d, 8);
        a->scalar_size = 8;
        return;
    }
    size_t size;
    if (!strcmp(type + 1, "8"))
        size = 1;
    else if (!strcmp(type + 1, "16"))
        size = 2;
    else if (!strcmp(type + 1, "32"))
        size = 4;
    else if (!strcmp(type + 1, "64"))
        size = 8;
    else
        size = 0;
    unsigned long long bits;
    if (size && type[0] == 'u') {
        bits = parse_uint(value, size == 8 ? ~0ull : (1ull << (8 * size)) - 1);
    } else if (size && type[0] == 'i') {
        long long max = size == 8 ? 0x7fffffffffffffffll : (1ll << (8 * size - 1)) - 1;
        bits = (unsigned long long)parse_int(value, -max - 1, max);
    } else {
        bad("unknown argument type `%s` (file, zeros, alias, u8..u64, i8..i64, f32, f64)", type);
        return;
    }
    /* Little-endian, as the kernel's parameter of that size. */
    for (size_t i = 0; i < size; i++)
        a->scalar[i] = (unsigned char)(bits >> (8 * i));
    a->scalar_size = size;
}

static struct block *parse_manifest(const char *path, size_t *nblocks) {
    FILE *f = fopen(path, "r");
    if (!f)
        die("cannot open manifest `%s`: %s", path, strerror(errno));
    manifest_path = path;
    struct block *blocks = NULL, *b = NULL;
    *nblocks = 0;
    char line[MAX_LINE];
    while (fgets(line, sizeof line, f)) {
        manifest_line++;
        if (!strchr(line, '\n') && !feof(f))
            bad("line longer than %s characters", "8191");
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *rest = trim(line);
        char *key = word(&rest);
        if (!key)
            continue;
        if (!strcmp(key, "launch")) {
            if (b)
                bad("`launch` inside the block `%s` (no `end`)", b->name);
            b = PUSH(blocks, *nblocks);
            b->name = xstrdup(trim(rest));
            b->repeat = 1;
            if (!b->name[0])
                bad("`launch` needs a name%s", "");
            continue;
        }
        if (!b)
            bad("`%s` outside a `launch` ... `end` block", key);
        struct step *s = b->nsteps ? &b->steps[b->nsteps - 1] : NULL;
        if (!strcmp(key, "end")) {
            if (!b->ptx)
                bad("the block `%s` has no `ptx`", b->name);
            if (!b->nsteps)
                bad("the block `%s` has no `kernel`", b->name);
            b = NULL;
        } else if (!strcmp(key, "ptx")) {
            b->ptx = xstrdup(trim(rest));
        } else if (!strcmp(key, "repeat")) {
            b->repeat = (int)parse_uint(word(&rest), 1000000);
            if (b->repeat < 1)
                bad("`repeat` must be at least 1%s", "");
        } else if (!strcmp(key, "flush_l2")) {
            b->flush_l2 = 1;
        } else if (!strcmp(key, "symbol")) {
            struct symbol *sym = PUSH(b->symbols, b->nsymbols);
            char *name = word(&rest);
            if (!name || !trim(rest)[0])
                bad("`symbol` needs NAME PATH%s", "");
            sym->name = xstrdup(name);
            sym->path = xstrdup(trim(rest));
        } else if (!strcmp(key, "kernel")) {
            char *name = word(&rest);
            if (!name)
                bad("`kernel` needs a name%s", "");
            s = PUSH(b->steps, b->nsteps);
            s->kernel = xstrdup(name);
            s->grid[0] = s->grid[1] = s->grid[2] = 1;
            s->block[0] = s->block[1] = s->block[2] = 1;
            s->first_arg = b->nargs;
        } else if (!s) {
            bad("`%s` before the first `kernel`", key);
        } else if (!strcmp(key, "grid")) {
            parse_dims(rest, s->grid);
        } else if (!strcmp(key, "block")) {
            parse_dims(rest, s->block);
        } else if (!strcmp(key, "shared")) {
            s->shared = (unsigned)parse_uint(word(&rest), 0xffffffffu);
        } else if (!strcmp(key, "arg")) {
            char *type = word(&rest);
            if (!type)
                bad("`arg` needs a kind%s", "");
            struct arg *a = PUSH(b->args, b->nargs);
            s->nargs++;
            if (!strcmp(type, "file")) {
                a->kind = ARG_FILE;
                a->path = xstrdup(trim(rest));
                if (!a->path[0])
                    bad("`arg file` needs a path%s", "");
            } else if (!strcmp(type, "zeros")) {
                a->kind = ARG_ZEROS;
                a->bytes = (size_t)parse_uint(word(&rest), (size_t)-1 / 2);
            } else if (!strcmp(type, "alias")) {
                a->kind = ARG_ALIAS;
                char *k_text = word(&rest);
                size_t k = (size_t)parse_uint(k_text, (size_t)-1 / 2);
                if (k + 1 >= b->nargs)
                    bad("`arg alias %s` names no earlier argument", k_text);
                while (b->args[k].kind == ARG_ALIAS)
                    k = b->args[k].alias;
                if (b->args[k].kind == ARG_SCALAR)
                    bad("`arg alias %s` names a scalar, not a buffer", k_text);
                a->alias = k;
            } else {
                parse_scalar(a, type, word(&rest));
            }
        } else if (!strcmp(key, "out")) {
            struct out *o = PUSH(b->outs, b->nouts);
            o->arg = (size_t)parse_uint(word(&rest), (size_t)-1 / 2);
            o->path = xstrdup(trim(rest));
            if (!o->path[0])
                bad("`out` needs K PATH%s", "");
        } else {
            bad("unknown keyword `%s`", key);
        }
    }
    if (b)
        bad("the block `%s` has no `end`", b->name);
    fclose(f);
    for (size_t i = 0; i < *nblocks; i++) {
        struct block *blk = &blocks[i];
        for (size_t k = 0; k < blk->nouts; k++) {
            size_t a = blk->outs[k].arg;
            if (a >= blk->nargs || blk->args[a].kind == ARG_SCALAR) {
                manifest_line = 0;
                bad("`out` names an argument that is not a buffer (block `%s`)", blk->name);
            }
        }
    }
    return blocks;
}

/* ---- JSON ------------------------------------------------------------------------------- */

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* ---- the device ------------------------------------------------------------------------- */

struct device {
    CUdevice dev;
    char name[256];
    int driver, major, minor, sms, clock_khz, mem_clock_khz, bus_bits, l2_bytes;
    size_t memory;
};

static void device_open(struct device *d) {
    int count;
    CHECK(cuInit(0));
    CHECK(cuDriverGetVersion(&d->driver));
    CHECK(cuDeviceGetCount(&count));
    if (count < 1)
        die("no CUDA device");
    CHECK(cuDeviceGet(&d->dev, 0));
    CHECK(cuDeviceGetName(d->name, sizeof d->name, d->dev));
    CHECK(cuDeviceGetAttribute(&d->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->dev));
    CHECK(cuDeviceGetAttribute(&d->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev));
    CHECK(cuDeviceGetAttribute(&d->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d->dev));
    CHECK(cuDeviceGetAttribute(&d->clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, d->dev));
    CHECK(cuDeviceGetAttribute(&d->mem_clock_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, d->dev));
    CHECK(cuDeviceGetAttribute(&d->bus_bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, d->dev));
    CHECK(cuDeviceGetAttribute(&d->l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, d->dev));
    CHECK(cuDeviceTotalMem(&d->memory, d->dev));
}

static void device_json(FILE *f, const struct device *d) {
    fputs("{\"name\": ", f);
    json_string(f, d->name);
    fprintf(f,
            ", \"compute_capability\": \"%d.%d\", \"driver_version\": %d, \"sms\": %d, "
            "\"clock_khz\": %d, \"memory_clock_khz\": %d, \"memory_bus_bits\": %d, "
            "\"l2_bytes\": %d, \"memory_bytes\": %zu}",
            d->major, d->minor, d->driver, d->sms, d->clock_khz, d->mem_clock_khz, d->bus_bits,
            d->l2_bytes, d->memory);
}

/* ---- running a block -------------------------------------------------------------------- */

static char context_text[1024];

static void set_context(const struct block *b, const struct step *s) {
    if (s)
        snprintf(context_text, sizeof context_text, "launch `%s`, kernel `%s`", b->name,
                 s->kernel);
    else
        snprintf(context_text, sizeof context_text, "launch `%s`", b->name);
    context = context_text;
}

static void run_block(struct block *b, const struct device *d) {
    set_context(b, NULL);
    size_t ptx_len;
    char *ptx = read_file("PTX file", b->ptx, &ptx_len);
    for (size_t i = 0; i < b->nsymbols; i++)
        b->symbols[i].data = read_file("symbol file", b->symbols[i].path, &b->symbols[i].len);
    for (size_t i = 0; i < b->nargs; i++) {
        struct arg *a = &b->args[i];
        if (a->kind == ARG_FILE)
            a->init = read_file("argument file", a->path, &a->bytes);
        else if (a->kind == ARG_ZEROS)
            a->init = xmalloc(a->bytes);
    }

    /* The module, with the JIT's log on failure. */
    static char error_log[16384], info_log[16384];
    error_log[0] = info_log[0] = 0;
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {error_log, (void *)(size_t)sizeof error_log, info_log,
                      (void *)(size_t)sizeof info_log};
    CUmodule module;
    CUresult r = cuModuleLoadDataEx(&module, ptx, 4, options, values);
    if (r != CUDA_SUCCESS) {
        if (error_log[0])
            fprintf(stderr, "launch_bench: JIT error log of `%s`:\n%s\n", b->ptx, error_log);
        check(r, "cuModuleLoadDataEx(&module, ptx, 4, options, values)");
    }
    for (size_t i = 0; i < b->nsteps; i++) {
        struct step *s = &b->steps[i];
        set_context(b, s);
        CHECK(cuModuleGetFunction(&s->function, module, s->kernel));
        s->ms = xmalloc(sizeof(float) * (size_t)b->repeat);
    }
    set_context(b, NULL);

    /* Buffers (at least one byte each, so that every buffer has an address of its own). */
    for (size_t i = 0; i < b->nargs; i++) {
        struct arg *a = &b->args[i];
        if (a->kind == ARG_FILE || a->kind == ARG_ZEROS)
            CHECK(cuMemAlloc(&a->dptr, a->bytes ? a->bytes : 1));
    }
    for (size_t i = 0; i < b->nargs; i++)
        if (b->args[i].kind == ARG_ALIAS)
            b->args[i].dptr = b->args[b->args[i].alias].dptr;
    CUdeviceptr scratch = 0;
    size_t scratch_words = 0;
    if (b->flush_l2 && d->l2_bytes > 0) {
        scratch_words = (size_t)d->l2_bytes * 2 / 4;
        CHECK(cuMemAlloc(&scratch, scratch_words * 4));
    }
    CUevent *events = xmalloc(sizeof(CUevent) * 2 * b->nsteps);
    for (size_t i = 0; i < 2 * b->nsteps; i++)
        CHECK(cuEventCreate(&events[i], 0));
    void **params = xmalloc(sizeof(void *) * (b->nargs ? b->nargs : 1));
    for (size_t i = 0; i < b->nargs; i++) {
        struct arg *a = &b->args[i];
        params[i] = a->kind == ARG_SCALAR ? (void *)a->scalar : (void *)&a->dptr;
    }

    for (int rep = 0; rep < b->repeat; rep++) {
        set_context(b, NULL);
        for (size_t i = 0; i < b->nargs; i++) {
            struct arg *a = &b->args[i];
            if ((a->kind == ARG_FILE || a->kind == ARG_ZEROS) && a->bytes)
                CHECK(cuMemcpyHtoD(a->dptr, a->init, a->bytes));
        }
        for (size_t i = 0; i < b->nsymbols; i++) {
            struct symbol *sym = &b->symbols[i];
            CUdeviceptr where;
            size_t size;
            snprintf(context_text, sizeof context_text, "launch `%s`, symbol `%s`", b->name,
                     sym->name);
            CHECK(cuModuleGetGlobal(&where, &size, module, sym->name));
            if (sym->len > size)
                die("`%s` holds %zu bytes, the variable %zu", sym->path, sym->len, size);
            if (sym->len)
                CHECK(cuMemcpyHtoD(where, sym->data, sym->len));
        }
        set_context(b, NULL);
        if (scratch)
            CHECK(cuMemsetD32(scratch, (unsigned)rep + 1, scratch_words));
        CHECK(cuCtxSynchronize());
        for (size_t i = 0; i < b->nsteps; i++) {
            struct step *s = &b->steps[i];
            set_context(b, s);
            CHECK(cuEventRecord(events[2 * i], NULL));
            CHECK(cuLaunchKernel(s->function, s->grid[0], s->grid[1], s->grid[2], s->block[0],
                                 s->block[1], s->block[2], s->shared, NULL,
                                 params + s->first_arg, NULL));
            CHECK(cuEventRecord(events[2 * i + 1], NULL));
        }
        for (size_t i = 0; i < b->nsteps; i++) {
            struct step *s = &b->steps[i];
            set_context(b, s);
            CHECK(cuEventSynchronize(events[2 * i + 1]));
            CHECK(cuEventElapsedTime(&s->ms[rep], events[2 * i], events[2 * i + 1]));
        }
    }
    set_context(b, NULL);
    CHECK(cuCtxSynchronize());
    for (size_t i = 0; i < b->nouts; i++) {
        struct arg *a = &b->args[b->outs[i].arg];
        if (a->kind == ARG_ALIAS)
            a = &b->args[a->alias];
        char *host = xmalloc(a->bytes);
        if (a->bytes)
            CHECK(cuMemcpyDtoH(host, a->dptr, a->bytes));
        write_file(b->outs[i].path, host, a->bytes);
        free(host);
    }

    for (size_t i = 0; i < 2 * b->nsteps; i++)
        CHECK(cuEventDestroy(events[i]));
    for (size_t i = 0; i < b->nargs; i++)
        if (b->args[i].kind == ARG_FILE || b->args[i].kind == ARG_ZEROS)
            CHECK(cuMemFree(b->args[i].dptr));
    if (scratch)
        CHECK(cuMemFree(scratch));
    CHECK(cuModuleUnload(module));
    free(events);
    free(params);
    free(ptx);
    context = "";
}

static void block_json(FILE *f, const struct block *b) {
    fputs("  {\"name\": ", f);
    json_string(f, b->name);
    fputs(", \"ptx\": ", f);
    json_string(f, b->ptx);
    fprintf(f, ", \"repeat\": %d, \"flush_l2\": %s,\n   \"steps\": [", b->repeat,
            b->flush_l2 ? "true" : "false");
    for (size_t i = 0; i < b->nsteps; i++) {
        const struct step *s = &b->steps[i];
        fputs(i ? ",\n    {\"kernel\": " : "\n    {\"kernel\": ", f);
        json_string(f, s->kernel);
        fprintf(f, ", \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], \"shared\": %u, \"ms\": [",
                s->grid[0], s->grid[1], s->grid[2], s->block[0], s->block[1], s->block[2],
                s->shared);
        for (int rep = 0; rep < b->repeat; rep++)
            fprintf(f, "%s%.9g", rep ? ", " : "", (double)s->ms[rep]);
        fputs("]}", f);
    }
    fputs("],\n   \"outputs\": {", f);
    for (size_t i = 0; i < b->nouts; i++) {
        fprintf(f, "%s\"%zu\": ", i ? ", " : "", b->outs[i].arg);
        json_string(f, b->outs[i].path);
    }
    fputs("}}", f);
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--info")) {
        struct device d;
        device_open(&d);
        FILE *f = strcmp(argv[2], "-") ? fopen(argv[2], "w") : stdout;
        if (!f)
            die("cannot write `%s`: %s", argv[2], strerror(errno));
        device_json(f, &d);
        fputc('\n', f);
        if (f != stdout && fclose(f) != 0)
            die("cannot write `%s`: %s", argv[2], strerror(errno));
        return 0;
    }
    if (argc != 3 || argv[1][0] == '-') {
        fprintf(stderr,
                "usage: %s MANIFEST OUT.json    run the manifest's launches\n"
                "       %s --info OUT.json|-    the device's name and properties\n",
                argv[0], argv[0]);
        return 2;
    }
    size_t nblocks;
    struct block *blocks = parse_manifest(argv[1], &nblocks);
    if (!nblocks)
        die("the manifest `%s` has no `launch` block", argv[1]);
    /* Every input file is checked before the device is touched. */
    for (size_t i = 0; i < nblocks; i++) {
        struct block *b = &blocks[i];
        set_context(b, NULL);
        FILE *f = fopen(b->ptx, "rb");
        if (!f)
            die("cannot open PTX file `%s`: %s", b->ptx, strerror(errno));
        fclose(f);
    }
    context = "";
    struct device d;
    device_open(&d);
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, 0, d.dev));
    for (size_t i = 0; i < nblocks; i++)
        run_block(&blocks[i], &d);
    CHECK(cuCtxDestroy(ctx));

    FILE *f = fopen(argv[2], "w");
    if (!f)
        die("cannot write `%s`: %s", argv[2], strerror(errno));
    fputs("{\"device\": ", f);
    device_json(f, &d);
    fputs(",\n \"launches\": [\n", f);
    for (size_t i = 0; i < nblocks; i++) {
        block_json(f, &blocks[i]);
        fputs(i + 1 < nblocks ? ",\n" : "\n", f);
    }
    fputs(" ]}\n", f);
    if (fclose(f) != 0)
        die("cannot write `%s`: %s", argv[2], strerror(errno));
    return 0;
}
