/* Options nobody reads, and options without effect: see optcheck.h. */
#include "program/optcheck.h"
#include "options/optmark.h"
#include "data/errors.h"
#include "inversion/tao.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_LEN   64   /* option names are compared up to this length */
#define MAX_KNOWN  2048 /* option names collected from -help */
#define MAX_LISTED 8    /* unused options named in one message */
#define COUNT(a)   (sizeof(a) / sizeof((a)[0]))

/* PETSc's own options that are still unmarked when halofwi checks: read by
   PetscFinalize, by a debugging path or not at all in this build.  The
   start-up options users type most are listed too, as suggestions. */
static const char *const petsc_own[] = {
  "options_left", "options_view", "options_suppress_deprecated_warnings", "options_file", "options_monitor", "malloc_view_threshold", "malloc_info",
  "memory_view", "malloc_dump", "malloc_debug", "malloc_view", "malloc_test", "objects_dump", "mpidump", "citations", "get_total_flops", "log_view",
  "log_summary", "log_mpe", "log_all", "log_trace", "nox", "nox_warning", "x_virtual", "saw_options", "mpi_linear_solver_server", "on_error_abort",
  "info", "help", "version", "no_signal_handler"};
/* PETSc's viewer options: read whenever a viewer opens (-log_view :file). */
static const char *const petsc_own_prefix[] = {"viewer_"};
/* Read by TaoSolve only, so the Tao dropped before the run never reads them. */
static const char *const tao_solve_only[] = {"tao_view", "tao_ls_view"};

typedef struct {
  char (*name)[NAME_LEN]; /* without the leading '-' */
  PetscInt n;
} NameList;

static NameList *collecting; /* where CollectOptionName puts what it finds */

/* TAO reads its options in TaoSetFromOptions, which -mode invert calls only
   once the model is loaded: a Tao read and dropped now marks them as read
   (and lists them under -help), so that a typo stops the run before any work. */
static PetscErrorCode ReadTaoOptions(MPI_Comm comm)
{
  Tao       tao;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(InvertTaoCreate(comm, &tao));
  PetscCall(TaoSetFromOptions(tao));
  PetscCall(TaoDestroy(&tao));
  for (size_t k = 0; k < COUNT(tao_solve_only); k++) {
    char name[NAME_LEN + 1];
    PetscCall(PetscSNPrintf(name, sizeof name, "-%s", tao_solve_only[k]));
    PetscCall(PetscOptionsHasName(NULL, NULL, name, &set));
  }
  PetscFunctionReturn(0);
}

static PetscBool PetscOwn(const char *name)
{
  for (size_t k = 0; k < COUNT(petsc_own); k++)
    if (!strcmp(name, petsc_own[k])) return PETSC_TRUE;
  for (size_t k = 0; k < COUNT(petsc_own_prefix); k++)
    if (!strncmp(name, petsc_own_prefix[k], strlen(petsc_own_prefix[k]))) return PETSC_TRUE;
  return PETSC_FALSE;
}

static void NameListAdd(NameList *l, const char *name, size_t len)
{
  if (l->n >= MAX_KNOWN) return;
  len = PetscMin(len, NAME_LEN - 1);
  memcpy(l->name[l->n], name, len);
  l->name[l->n++][len] = 0;
}

/* Keeps the name of the option a help line starts with. */
static void CollectFrom(const char *line)
{
  const char *p   = line;
  size_t      len = 0;

  while (*p == ' ') p++;
  if (p[0] != '-' || !isalpha((unsigned char)p[1])) return;
  for (p++; isalnum((unsigned char)p[len]) || p[len] == '_'; len++) {}
  NameListAdd(collecting, p, len);
}

/* Stand in for PetscHelpPrintf and PetscVFPrintf (through which PETSc
   prints a list of types) while the options are read again under -help:
   they collect and print nothing. */
static PetscErrorCode CollectOptionName(MPI_Comm comm, const char fmt[], ...)
{
  char    line[256];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  CollectFrom(line);
  return 0;
}

static PetscErrorCode CollectPrinted(FILE *fd, const char fmt[], va_list ap)
{
  char line[256];

  vsnprintf(line, sizeof line, fmt, ap);
  CollectFrom(line);
  return 0;
}

/* The names of every option this run knows: the options are read again
   under -help (set for the moment unless given), the help text going to
   CollectOptionName.  PETSc prints each section's help once, so what it
   remembers having printed is dropped first.  Only on the way to an error or
   warning, so that normal runs never do it. */
static PetscErrorCode CollectKnownNames(MPI_Comm comm, const Options *o, NameList *known)
{
  PetscErrorCode (*print)(MPI_Comm, const char[], ...) = PetscHelpPrintf;
  PetscErrorCode (*vfprint)(FILE *, const char[], va_list) = PetscVFPrintf;
  Options        scratch;
  PetscBool      help;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(MAX_KNOWN, &known->name));
  for (size_t k = 0; k < COUNT(petsc_own); k++) NameListAdd(known, petsc_own[k], strlen(petsc_own[k]));
  for (size_t k = 0; o->mode == MODE_INVERT && k < COUNT(tao_solve_only); k++) NameListAdd(known, tao_solve_only[k], strlen(tao_solve_only[k]));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (!help) PetscCall(PetscOptionsSetValue(NULL, "-help", NULL));
  PetscCall(PetscOptionsHelpPrintedDestroy(&PetscOptionsHelpPrintedSingleton));
  collecting      = known;
  PetscHelpPrintf = CollectOptionName;
  PetscVFPrintf   = CollectPrinted;
  ierr            = OptionsParse(comm, &scratch);
  if (!ierr && o->mode == MODE_INVERT) ierr = ReadTaoOptions(comm);
  PetscHelpPrintf = print;
  PetscVFPrintf   = vfprint;
  if (!help) PetscCall(PetscOptionsClearValue(NULL, "-help"));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* Levenshtein distance: insertions, deletions and substitutions. */
static PetscInt EditDistance(const char *a, const char *b)
{
  const size_t la = strnlen(a, NAME_LEN - 1), lb = strnlen(b, NAME_LEN - 1);
  PetscInt     row[NAME_LEN];

  for (size_t j = 0; j <= lb; j++) row[j] = (PetscInt)j;
  for (size_t i = 1; i <= la; i++) {
    PetscInt diag = row[0];
    row[0]        = (PetscInt)i;
    for (size_t j = 1; j <= lb; j++) {
      const PetscInt up = row[j];
      row[j]            = PetscMin(PetscMin(row[j] + 1, row[j - 1] + 1), diag + (a[i - 1] != b[j - 1]));
      diag              = up;
    }
  }
  return row[lb];
}

/* The known name nearest to name, when near enough to be a typo of it. */
static const char *Closest(const NameList *known, const char *name)
{
  const char    *best  = NULL;
  PetscInt       dbest = PETSC_MAX_INT;
  const PetscInt limit = PetscMax(1, (PetscInt)strlen(name) / 3); /* a third of the letters wrong, one in a short name */

  for (PetscInt k = 0; k < known->n; k++) {
    const PetscInt d = EditDistance(name, known->name[k]);
    if (d < dbest) {
      dbest = d;
      best  = known->name[k];
    }
  }
  return dbest > 0 && dbest <= limit ? best : NULL;
}

/* "-nshot 5 (did you mean -nshots?)" and the like. */
static void DescribeUnused(const Options *o, const NameList *known, const char *name, const char *value, char *out, size_t len)
{
  const char *best;
  char        typed[2 * NAME_LEN + 8];

  snprintf(typed, sizeof typed, "-%s%s%s", name, value ? " " : "", value ? value : "");
  if (!strncmp(name, "tao_", 4) && o->mode != MODE_INVERT)
    snprintf(out, len, "%s (only -mode invert reads TAO options; this run is -mode %s)", typed, RunModeNames[o->mode]);
  else if ((best = Closest(known, name))) snprintf(out, len, "%s (did you mean -%s?)", typed, best);
  else snprintf(out, len, "%s (no option of that name here; halofwi -help lists them)", typed);
}

/* How many options nothing read, PETSc's own left out. */
static PetscErrorCode CountUnused(PetscInt *count)
{
  PetscInt n;
  char   **names, **values;

  PetscFunctionBeginUser;
  *count = 0;
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (PetscInt k = 0; k < n; k++) *count += !PetscOwn(names[k]);
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscFunctionReturn(0);
}

/* One line naming the unused options, the first MAX_LISTED in full. */
static PetscErrorCode ListUnused(const Options *o, const NameList *known, PetscInt count, char *msg, size_t len)
{
  PetscInt n, listed = 0;
  char   **names, **values;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(msg, len, "Option%s that this run does not read: ", count > 1 ? "s" : ""));
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (PetscInt k = 0; k < n && listed < MAX_LISTED; k++) {
    char item[4 * NAME_LEN + 128];
    if (PetscOwn(names[k])) continue;
    DescribeUnused(o, known, names[k], values[k], item, sizeof item);
    if (listed++) PetscCall(PetscStrlcat(msg, "; ", len));
    PetscCall(PetscStrlcat(msg, item, len));
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  if (count > listed) {
    char more[64];
    PetscCall(PetscSNPrintf(more, sizeof more, "; and %" PetscInt_FMT " more", count - listed));
    PetscCall(PetscStrlcat(msg, more, len));
  }
  PetscFunctionReturn(0);
}


PetscErrorCode OptionsCheckUnused(MPI_Comm comm, const Options *o)
{
  PetscInt    mine, count;
  NameList    known = {NULL, 0};
  char        msg[2048];
  const char *them;

  PetscFunctionBeginUser;
  if (o->mode == MODE_INVERT) PetscCall(ReadTaoOptions(comm));
  PetscCall(CountUnused(&mine));
  /* every rank holds the same options; agreed all the same, as what follows is collective */
  PetscCallMPI(MPI_Allreduce(&mine, &count, 1, MPIU_INT, MPI_MAX, comm));
  if (!count) PetscFunctionReturn(0);
  PetscCall(CollectKnownNames(comm, o, &known));
  PetscCall(ListUnused(o, &known, count, msg, sizeof msg));
  PetscCall(PetscFree(known.name));
  them = count > 1 ? "them" : "it";
  if (o->unused_warn) PetscCall(PetscPrintf(comm, "WARNING: %s; the run goes ahead without %s (-unused_options warn)\n", msg, them));
  else {
    OptionsMarkAllRead(); /* they are named above */
    SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s. Nothing was run: correct or remove %s, or give -unused_options warn to run without %s", msg, them, them);
  }
  PetscFunctionReturn(0);
}
