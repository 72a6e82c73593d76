/* The case study of jq bug #817 (language-of-error.txt, Appendix A): a harness around
   linker.c's build_lib_search_chain, the function that expands the -L search paths,
   with events on its three arguments (pv's "user-defined learning events monitoring
   the status of these arguments").

   The property is the one the bug breaks: writing a relative search directory as
   "./m" or as "m" names the same directory. The harness expands a nondeterministic
   search path and its twin (every "./m" written "m" and every "m" written "./m"),
   and asserts that both chains name the same directories once resolved against the
   working directory.

   Compiled as part of linker.c's unit (the function is static): give it with the
   jq sources' units that the chain needs, e.g.
     tracelearn explain harness.c --unit jv.c --unit jv_alloc.c ... -I <jq> --alphabet none
   (benchmarks/jq/case817.py runs it on both commits). */
#include "linker.c"

#define CWD "/w"
#ifndef MAX_PATHS
#define MAX_PATHS 2  /* search directories: -DMAX_PATHS=3 for more (about 5x the paths) */
#endif

extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
extern void __tl_event(const char *);

/* p resolved against CWD, without "." components; out has room for 64 bytes */
static void canonical(const char *p, char *out) {
  char tmp[64];
  if (p[0] == '/') {
    strcpy(tmp, p);
  } else {
    strcpy(tmp, CWD "/");
    strcat(tmp, p);
  }
  size_t o = 0;
  const char *s = tmp;
  while (*s) {
    if (*s == '/') { s++; continue; }
    const char *e = strchr(s, '/');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (!(n == 1 && s[0] == '.')) {
      out[o++] = '/';
      memcpy(out + o, s, n);
      o += n;
    }
    s += n;
  }
  if (o == 0) out[o++] = '/';
  out[o] = 0;
}

int main(void) {
  int n = __VERIFIER_nondet_int();
  __VERIFIER_assume(n >= 1 && n <= MAX_PATHS);
  jv search = jv_array(), twins = jv_array();
  for (int i = 0; i < n; i++) {
    /* each search directory is written one of these ways; its twin is the same
       directory written with "./" if it had none, without if it had one */
    const char *path, *twin;
    switch (__VERIFIER_nondet_int()) {  /* an event's name is a literal */
    case 0: __tl_event("path_dot"); path = "."; twin = "."; break;
    case 1: __tl_event("path_dot_slash"); path = "./m"; twin = "m"; break;
    case 2: __tl_event("path_plain"); path = "m"; twin = "./m"; break;
    case 3: __tl_event("path_absolute"); path = "/a"; twin = "/a"; break;
    case 4: __tl_event("path_origin_var"); path = "$ORIGIN/m"; twin = "$ORIGIN/m"; break;
    default: return 0;
    }
    search = jv_array_append(search, jv_string(path));
    twins = jv_array_append(twins, jv_string(twin));
  }
  /* lib_origin: none (a library named on the command line), the working directory
     (the program given on the command line: PROGRAM_ORIGIN is realpath(".")), or a
     module's directory (an import inside a module) */
  jv lib_origin;
  int o = __VERIFIER_nondet_int();
  __VERIFIER_assume(o >= 0 && o <= 2);
  if (o == 0) {
    __tl_event("origin_none");
    lib_origin = jv_null();
  } else if (o == 1) {
    __tl_event("origin_cwd");
    lib_origin = jv_string(CWD);
  } else {
    __tl_event("origin_module");
    lib_origin = jv_string(CWD "/lib");
  }
  jv jq_origin = jv_string("/b");
  jv chain = build_lib_search_chain(0, search, jv_copy(jq_origin), jv_copy(lib_origin));
  jv twin_chain = build_lib_search_chain(0, twins, jq_origin, lib_origin);
  /* the fixed version returns [chain, error] */
  if (jv_get_kind(chain) == JV_KIND_ARRAY && jv_array_length(jv_copy(chain)) == 2 &&
      jv_get_kind(jv_array_get(jv_copy(chain), 0)) == JV_KIND_ARRAY) {
    chain = jv_array_get(chain, 0);
    twin_chain = jv_array_get(twin_chain, 0);
  }
  int same = jv_array_length(jv_copy(chain)) == jv_array_length(jv_copy(twin_chain));
  for (int i = 0; same && i < jv_array_length(jv_copy(chain)); i++) {
    char a[64], b[64];
    jv x = jv_array_get(jv_copy(chain), i), y = jv_array_get(jv_copy(twin_chain), i);
    canonical(jv_string_value(x), a);
    canonical(jv_string_value(y), b);
    same = strcmp(a, b) == 0;
    jv_free(x);
    jv_free(y);
  }
  jv_free(chain);
  jv_free(twin_chain);
  assert(same);
  return 0;
}
