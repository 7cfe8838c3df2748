#include "equations/equation.h"
#include <string.h>

PetscInt EquationParameterIndex(const Equation *eq, const char *name)
{
  for (PetscInt k = 0; k < eq->nparameter; k++)
    if (!strcmp(eq->parameter[k].name, name)) return k;
  return -1;
}
