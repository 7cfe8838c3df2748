#include "inversion/tao.h"
#include "options/options.h"
#include <stdio.h>

PetscErrorCode InvertTaoCreate(MPI_Comm comm, Tao *tao)
{
  PetscFunctionBeginUser;
  PetscCall(TaoCreate(comm, tao));
  PetscCall(TaoSetType(*tao, TAOBLMVM));
  PetscCall(TaoSetMaximumIterations(*tao, INVERT_DEFAULT_MAX_IT));
  PetscFunctionReturn(0);
}

/* What each reason means; %g, where present, is the figure named by value. */
enum { NONE, MAX_ITS, MAX_FUNCS, GATOL, GRTOL, GTTOL, FIGURES };
static const struct {
  TaoConvergedReason reason;
  const char        *what;
  int                value;
} meanings[] = {
  {TAO_DIVERGED_MAXITS,       "stopped at the iteration limit (-tao_max_it %g); the misfit may fall further with more",                               MAX_ITS  },
  {TAO_DIVERGED_MAXFCN,       "stopped at the limit of misfit evaluations (-tao_max_funcs %g)",                                                       MAX_FUNCS},
  {TAO_DIVERGED_LS_FAILURE,   "the line search found no step that lowers the misfit enough: the model is at a minimum for this band, or the gradient is too noisy to follow", NONE},
  {TAO_DIVERGED_NAN,          "the misfit or its gradient became NaN or infinite",                                                                   NONE     },
  {TAO_DIVERGED_TR_REDUCTION, "the trust region shrank to nothing without lowering the misfit",                                                     NONE     },
  {TAO_DIVERGED_USER,         "ended by a test of its own",                                                                                          NONE     },
  {TAO_CONVERGED_USER,        "ended by a test of its own",                                                                                          NONE     },
  {TAO_CONVERGED_GATOL,       "converged: the gradient's norm fell below -tao_gatol %g",                                                            GATOL    },
  {TAO_CONVERGED_GRTOL,       "converged: the gradient's norm fell below -tao_grtol %g of the misfit",                                              GRTOL    },
  {TAO_CONVERGED_GTTOL,       "converged: the gradient's norm fell by the factor -tao_gttol %g from its start",                                     GTTOL    },
  {TAO_CONVERGED_STEPTOL,     "converged: the steps became too small to change the model",                                                          NONE     },
  {TAO_CONVERGED_MINF,        "converged: the misfit fell below -tao_fmin",                                                                         NONE     },
};

PetscErrorCode TaoReasonText(Tao tao, TaoConvergedReason reason, PetscInt its, PetscInt max_its, char text[], size_t len)
{
  PetscInt  max_funcs;
  PetscReal gatol, grtol, gttol;
  double    figure[FIGURES];
  char      what[256] = "ended";

  PetscFunctionBeginUser;
  PetscCall(TaoGetMaximumFunctionEvaluations(tao, &max_funcs));
  PetscCall(TaoGetTolerances(tao, &gatol, &grtol, &gttol));
  figure[NONE]      = 0;
  figure[MAX_ITS]   = (double)max_its;
  figure[MAX_FUNCS] = (double)max_funcs;
  figure[GATOL]     = (double)gatol;
  figure[GRTOL]     = (double)grtol;
  figure[GTTOL]     = (double)gttol;
  for (size_t k = 0; k < sizeof meanings / sizeof meanings[0]; k++)
    if (meanings[k].reason == reason) snprintf(what, sizeof what, meanings[k].what, figure[meanings[k].value]); /* C's %g: PETSc's writes 20 as "20." */
  PetscCall(PetscSNPrintf(text, len, "%" PetscInt_FMT " iteration%s: %s [%s]", its, its == 1 ? "" : "s", what, TaoConvergedReasons[reason]));
  PetscFunctionReturn(0);
}
