/* The options as typed, before PETSc reads them: see optfile.h.  Nothing
   here may use PETSc's functions, which are not set up yet. */
#include "options/optfile.h"
#include "data/util.h"
#include <ctype.h>
#include <petscsys.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MSG_LEN      4096
#define PREFIX_DEPTH 16  /* -prefix_push nesting followed; deeper is left to PETSc */
#define PREFIX_LEN   256

/* The files being read, outermost first, the first refusal, and the
   options given twice in one place: refused like the options without
   effect, so a warning with -unused_options warn (the later value wins). */
typedef struct {
  const char *given[OPTION_FILE_DEPTH + 1]; /* as named */
  char       *real[OPTION_FILE_DEPTH + 1];
  int         depth;
  char        msg[MSG_LEN];
  char        twice[MSG_LEN];
  int         warn; /* -unused_options warn given */
} Walk;

/* One place options are given: the command line, PETSC_OPTIONS or one
   file.  Each option once per place, under the prefix pushed there. */
typedef struct {
  const char *where;
  char      **names, **values;
  int         n, cap;
  char        prefix[PREFIX_LEN];
  size_t      pushed[PREFIX_DEPTH];
  int         npushed;
} Source;

static int Refuse(Walk *w, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(w->msg, sizeof w->msg, fmt, ap);
  va_end(ap);
  return 1;
}

/* PETSc's rule (PetscOptionsValidKey): '-' or '--', a letter, and not a
   number such as -1e3 or -inf, which is a value. */
static int IsKey(const char *word)
{
  char *end;

  if (word[0] != '-') return 0;
  if (word[1] == '-') word++;
  if (!isalpha((unsigned char)word[1])) return 0;
  (void)strtod(word, &end);
  return end == word || *end == '_' || isalnum((unsigned char)*end);
}

/* -name, lower case (PETSc ignores case), "--" read as "-". */
static void KeyName(const char *key, char *name, size_t len)
{
  size_t i = 0;

  if (key[1] == '-') key++;
  for (; key[i] && i + 1 < len; i++) name[i] = (char)tolower((unsigned char)key[i]);
  name[i] = 0;
}

static void SourceFree(Source *s)
{
  for (int k = 0; k < s->n; k++) {
    free(s->names[k]);
    free(s->values[k]);
  }
  free(s->names);
  free(s->values);
}

static char *Copy(const char *s) { return s ? strdup(s) : NULL; }

/* Notes an option of s, and one given there before in w->twice. */
static int SourceAdd(Walk *w, Source *s, const char *name, const char *value)
{
  char full[PREFIX_LEN + MSG_LEN / 4];

  snprintf(full, sizeof full, "-%s%s", s->prefix, name + 1);
  for (int k = 0; k < s->n; k++)
    if (!strcmp(s->names[k], full)) {
      const size_t used = strlen(w->twice);
      snprintf(w->twice + used, sizeof w->twice - used, "%s%s gives %s twice (%s %s, then %s %s)", used ? "; " : "", s->where, full, full,
               s->values[k] ? s->values[k] : "with no value", full, value ? value : "with no value");
      return 0;
    }
  if (s->n == s->cap) {
    const int cap = 2 * s->cap + 16;
    char    **names = realloc(s->names, cap * sizeof *names), **values;
    if (!names) return 0; /* no memory to check with: PETSc reads it as it is */
    s->names = names;
    if (!(values = realloc(s->values, cap * sizeof *values))) return 0;
    s->values = values;
    s->cap    = cap;
  }
  s->names[s->n]    = Copy(full);
  s->values[s->n++] = Copy(value);
  return 0;
}

static void PrefixPush(Source *s, const char *prefix)
{
  if (s->npushed == PREFIX_DEPTH) return;
  s->pushed[s->npushed++] = strlen(s->prefix);
  strncat(s->prefix, prefix, sizeof s->prefix - strlen(s->prefix) - 1);
}

static void PrefixPop(Source *s)
{
  if (s->npushed) s->prefix[s->pushed[--s->npushed]] = 0;
}

/* "a.opts -> b.opts -> ..." for the files being read, then next. */
static void Chain(const Walk *w, const char *next, char *out, size_t len)
{
  out[0] = 0;
  for (int k = 0; k < w->depth; k++) {
    strncat(out, w->given[k], len - strlen(out) - 1);
    strncat(out, " -> ", len - strlen(out) - 1);
  }
  strncat(out, next, len - strlen(out) - 1);
}

/* A regular file of text: PETSc would wait forever on a FIFO and reads a
   binary file as if it were options.  Missing files are left to PETSc,
   which names them. */
static int CheckTextFile(Walk *w, const char *option, const char *path, int *exists)
{
  struct stat st;
  FILE       *fp;
  long        offset = 0;
  int         ch, line = 1;

  *exists = !stat(path, &st);
  if (!*exists) return 0;
  if (!S_ISREG(st.st_mode)) return Refuse(w, "%s %s: not a regular file; expected a text file of options", option, path);
  if (!(fp = fopen(path, "rb"))) return 0;
  while ((ch = fgetc(fp)) != EOF) {
    if (ch < 0x20 && !isspace(ch)) {
      fclose(fp);
      return Refuse(w, "%s %s is not a text options file: byte 0x%02x at offset %ld (line %d); expected lines of -option value", option, path, ch, offset, line);
    }
    line += ch == '\n';
    offset++;
  }
  fclose(fp);
  return 0;
}

static int ReadFile(Walk *w, const char *path);

/* One option with its value (or NULL), given in s. */
static int Option(Walk *w, Source *s, const char *key, const char *value)
{
  char name[MSG_LEN / 4];
  int  exists;

  KeyName(key, name, sizeof name);
  if (!strcmp(name, "-unused_options")) w->warn = value && !strcmp(value, "warn");
  if (!strcmp(name, "-options_file")) return value ? ReadFile(w, value) : 0;
  if (!strcmp(name, "-options_file_yaml")) return value ? CheckTextFile(w, name, value, &exists) : 0;
  if (!strcmp(name, "-prefix_push")) {
    if (value) PrefixPush(s, value);
    return 0;
  }
  if (!strcmp(name, "-prefix_pop")) {
    PrefixPop(s);
    return 0;
  }
  return SourceAdd(w, s, name, value);
}

/* Words as PETSc reads the command line and PETSC_OPTIONS: an option, then
   its value when the next word is not an option; -options_file and
   -prefix_push take the next word whatever it is. */
static int Words(Walk *w, Source *s, int n, char **word)
{
  for (int k = 0; k < n;) {
    char name[MSG_LEN / 4];
    int  takes;

    if (!IsKey(word[k]))
      return Refuse(w, "%s: '%s'%s%s%s is neither an option nor the value of one (an option starts with '-' and takes at most one value)", s->where, word[k],
                    k ? " after " : "", k ? word[k - 1] : "", k ? "" : " at the start");
    KeyName(word[k], name, sizeof name);
    takes = !strcmp(name, "-options_file") || !strcmp(name, "-options_file_yaml") || !strcmp(name, "-prefix_push") ||
            (strcmp(name, "-prefix_pop") && k + 1 < n && !IsKey(word[k + 1]));
    if (Option(w, s, word[k], takes && k + 1 < n ? word[k + 1] : NULL)) return 1;
    k += 1 + (takes && k + 1 < n);
  }
  return 0;
}

/* The words of text split at blanks, a double-quoted word kept whole (as
   PetscToken does); text is cut in place.  Returns the count, or -1. */
static int Split(char *text, char ***words)
{
  int n = 0, cap = 0;

  *words = NULL;
  for (char *p = text; *p;) {
    while (isspace((unsigned char)*p)) p++;
    if (!*p) break;
    if (n == cap) {
      char **more = realloc(*words, (cap = 2 * cap + 16) * sizeof *more);
      if (!more) return -1;
      *words = more;
    }
    (*words)[n++] = TakeWord(&p);
  }
  return n;
}

/* A file as PETSc's options-file reader takes it: per line (after '#'),
   an option and at most one value; PETSc drops any further word. */
static int FileLines(Walk *w, Source *s, FILE *fp, const char *path)
{
  char  *line = NULL, **word = NULL;
  size_t cap  = 0;
  int    no   = 0, refused = 0;

  while (!refused && getline(&line, &cap, fp) >= 0) {
    char *hash = strchr(line, '#');
    int   n;
    no++;
    if (hash) *hash = 0;
    free(word);
    if ((n = Split(line, &word)) <= 0 || !IsKey(word[0])) continue; /* blank, an alias line or PETSc's error */
    if (n > 2 && !IsKey(word[1]))
      refused = Refuse(w, "options file %s line %d: '%s' follows the value %s of %s; expected one option and at most one value per line", path, no, word[2], word[1],
                       word[0]);
    else refused = Option(w, s, word[0], n > 1 && !IsKey(word[1]) ? word[1] : NULL);
  }
  free(word);
  free(line);
  return refused;
}

static int ReadFile(Walk *w, const char *path)
{
  char   chain[MSG_LEN / 2], where[MSG_LEN / 4];
  char  *real;
  FILE  *fp;
  Source s = {where, NULL, NULL, 0, 0, "", {0}, 0};
  int    exists, refused;

  if (CheckTextFile(w, "-options_file", path, &exists)) return 1;
  if (!exists || !(real = realpath(path, NULL))) return 0;
  Chain(w, path, chain, sizeof chain);
  for (int k = 0; k < w->depth; k++)
    if (!strcmp(w->real[k], real)) {
      free(real);
      return Refuse(w, "-options_file %s: the options files include each other without end (%s)", path, chain);
    }
  if (w->depth == OPTION_FILE_DEPTH) {
    free(real);
    return Refuse(w, "-options_file %s: options files nested more than %d deep (%s)", path, OPTION_FILE_DEPTH, chain);
  }
  if (!(fp = fopen(path, "r"))) {
    free(real);
    return 0;
  }
  snprintf(where, sizeof where, "options file %s", path);
  w->given[w->depth] = path;
  w->real[w->depth++] = real;
  refused = FileLines(w, &s, fp, path);
  w->depth--;
  fclose(fp);
  free(real);
  SourceFree(&s);
  return refused;
}

/* Only one rank speaks under mpiexec (the launchers' rank variables). */
static int FirstRank(void)
{
  const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};

  for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++) {
    const char *rank = getenv(vars[k]);
    if (rank) return !strcmp(rank, "0");
  }
  return 1;
}

int OptionSourcesCheck(int argc, char **argv)
{
  Walk        w;
  Source      env = {"PETSC_OPTIONS", NULL, NULL, 0, 0, "", {0}, 0}, line = {"the command line", NULL, NULL, 0, 0, "", {0}, 0};
  const char *text = getenv("PETSC_OPTIONS");
  char       *copy = text ? strdup(text) : NULL, **word = NULL;
  int         n, refused = 0;

  memset(&w, 0, sizeof w);
  /* PETSc's order: PETSC_OPTIONS, then the command line */
  if (copy && (n = Split(copy, &word)) > 0) refused = Words(&w, &env, n, word);
  if (!refused) refused = Words(&w, &line, argc - 1, argv + 1);
  free(word);
  free(copy);
  SourceFree(&env);
  SourceFree(&line);
  if (!refused && w.twice[0] && w.warn && FirstRank()) printf("WARNING: %s: the later value is used (-unused_options warn)\n", w.twice);
  if (!refused && w.twice[0] && !w.warn)
    refused = Refuse(&w, "%s: expected each option once in one place (or -unused_options warn: the later value is used)", w.twice);
  if (refused && FirstRank()) fprintf(stderr, "halofwi: %s. Nothing was run.\n", w.msg);
  return refused ? PETSC_ERR_USER_INPUT : 0;
}
