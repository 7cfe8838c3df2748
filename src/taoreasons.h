/* Why TAO ended a band, in words a user reads as what happened (TAO's own
   name follows in brackets for those who know them). */
#pragma once
#include <petsctao.h>

/* A one-line meaning of reason, which tao (just solved) gave after its of
   at most max_its iterations (a band's, over its Taos); into text. */
PetscErrorCode TaoReasonText(Tao tao, TaoConvergedReason reason, PetscInt its, PetscInt max_its, char text[], size_t len);
