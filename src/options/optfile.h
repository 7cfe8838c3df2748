/* The options as typed, checked before PetscInitialize reads them: PETSc
   follows -options_file without limit (a file that includes itself recurses
   until the stack runs out), reads a binary file as text, and drops stray
   words and repeated options without a word. */
#pragma once

/* Options files nested deeper than this are refused. */
#define OPTION_FILE_DEPTH 8

/* Reads the command line, PETSC_OPTIONS and the options files they name
   (-options_file, followed through the files; -options_file_yaml only
   checked to be a regular text file) the way PETSc will, and refuses, with
   one message on stderr (from the first rank only under mpiexec): a file
   that includes itself or a nesting deeper than OPTION_FILE_DEPTH (naming
   the chain of files), a file that is not a regular text file, a word that
   is neither an option nor the value right after one, and an option given
   twice in one place (the command line, PETSC_OPTIONS, or one file; with
   -unused_options warn a warning, the later value winning, as PETSc takes
   it).  Returns 0, or the exit status for main (PETSC_ERR_USER_INPUT). */
int OptionSourcesCheck(int argc, char **argv);
