/* TAO as halofwi drives it: the solver as set up before the options, and
   why it ended a band, in words a user reads as what happened (TAO's own
   name follows in brackets for those who know them). */
#pragma once
#include <petsctao.h>

/* A Tao with halofwi's defaults (blmvm, INVERT_DEFAULT_MAX_IT iterations
   per band), before its options are read. */
PetscErrorCode InvertTaoCreate(MPI_Comm comm, Tao *tao);

/* A one-line meaning of reason, which tao (just solved) gave after its of
   at most max_its iterations (a band's, over its Taos); into text. */
PetscErrorCode TaoReasonText(Tao tao, TaoConvergedReason reason, PetscInt its, PetscInt max_its, char text[], size_t len);
