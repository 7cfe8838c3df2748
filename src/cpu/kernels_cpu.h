/* Pieces of the CPU backend shared between its files. */
#pragma once
#include "kernels.h"

PetscErrorCode CPUAdjointLayersBegin(Fields *f);
PetscErrorCode CPUAdjointLayersEnd(Fields *f);
