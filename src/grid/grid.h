/* The computational grid of one shot group: the user's grid extended by the
   absorbing layers, decomposed over the group comm as a DMDA would be.  Axis order is
   (z, x, y) everywhere, z fastest, so the DMDA's natural ordering is the
   RSF ordering of the model. */
#pragma once
#include <petscdmda.h>

/* What one rank's block of the grid is, enough to lay out an equation's fields on it. */
typedef struct {
  PetscInt  dim, order;
  PetscInt  n[3];               /* owned cells (1 beyond dim) */
  PetscInt  pitch;              /* floats between padded rows (GridPaddedCells); 0: the padded row's */
  PetscReal d[3];               /* grid spacing per axis */
  PetscInt  layer_edge[3][2];   /* owned indices where the core begins and ends (may lie beyond the block) */
  PetscBool layer[3][2];        /* the grid has a layer on side s of axis a */
  PetscBool free_surface[3][2]; /* face (a, s) of the block is a free surface */
  PetscBool neighbour[3][2];    /* a rank lies across face (a, s) of the block */
} GridBlock;

typedef struct Grid {
  PetscInt    dim, order, radius;
  PetscInt    n[3];      /* user grid (1 beyond dim) */
  PetscReal   d[3];
  PetscInt    pml[3][2]; /* layer widths per axis and side */
  PetscInt    N[3];      /* extended grid */
  MPI_Comm    comm;      /* the group's, duplicated for the grid's own messages */
  PetscInt    start[3], size[3];   /* owned box, extended indices */
  PetscInt    pitch;               /* floats from one padded row (axis 0) to the next (GridPaddedCells); 0: the padded row's */
  PetscInt    nproc[3], proc[3];   /* process grid and this rank's coordinates */
  PetscInt   *ranges[3];           /* owned sizes of every process along each axis */
  PetscMPIInt nbr[3][2];           /* face neighbours on the group comm */
} Grid;

/* A DMDA of the grid's decomposition with `width` ghost cells a side (a
   star stencil), for what needs PETSc's ghost exchange (the smoothing).
   GridCreate keeps none: its maps take 20 bytes a cell. */
PetscErrorCode GridCreateDMDA(const Grid *g, PetscInt width, DM *da);
/* Refuses, collectively over group, a grid (absorbing layers included)
   with more cells than PetscInt counts. */
PetscErrorCode GridCheckCellCount(MPI_Comm group, PetscInt dim, const PetscInt n[3], const PetscInt pml[3][2]);
PetscErrorCode GridCreate(MPI_Comm group, PetscInt dim, const PetscInt n[3], const PetscReal d[3], PetscInt order,
                          const PetscInt pml[3][2], const PetscInt procs[3], Grid *g);
PetscErrorCode GridDestroy(Grid *g);

/* Must the CPML memory of the side-s layer of axis a be exchanged across
   face t of the owned box?  Yes where a neighbour lies there and the face is
   within `radius` cells of that layer or inside it: the adjoint reaches that far. */
PetscBool GridFaceNearLayer(const Grid *g, PetscInt a, PetscInt t, PetscInt s);
/* Is face (a, s) of the owned box a free surface (global edge, zero width)? */
PetscBool GridFreeSurface(const Grid *g, PetscInt a, PetscInt s);
/* Refuses, naming why and -da_processors_*, a subdomain on a free surface
   with fewer than `cells` cells along the surface's axis (what reaches
   into it from the surface must be this rank's own). */
PetscErrorCode GridCheckSurfaceDepth(const Grid *g, PetscInt cells, const char *why);
/* The CPML weights a (pa) and b (pb) of every padded index of this rank's
   box along axis a, and the first difference of a (pda, at the grid's
   order, in the layers only): zero in the core and in ghosts beyond the
   grid; vmax and f_pml (Hz) tune the profile, dt is the internal step. */
PetscErrorCode GridLayerProfile(const Grid *g, PetscInt a, PetscReal vmax, PetscReal f_pml, PetscReal dt, float *pa, float *pb, float *pda);
/* The same weights (pa, pb) half a cell further along axis a, at padded
   index k + 1/2: for the nodes of a staggered grid between cells. */
void GridLayerProfileHalf(const Grid *g, PetscInt a, PetscReal vmax, PetscReal f_pml, PetscReal dt, float *pa, float *pb);
/* This rank's owned box padded by the stencil's radius on every active
   axis, as every equation lays out its fields: padded[] per axis, and the
   floats an array over it takes.  Its rows (axis 0) lie g->pitch floats
   apart, a few more than padded[0] where a row's bytes (3840 or more)
   would come within 256 of a multiple of 4096: the rows a stencil reads
   would then share the few sets of the L1 cache that their addresses map
   to (variable density, 2D 800 x 2000, 1 thread: 0.35 G cell-updates/s
   with padded rows of 2048 floats, 0.55 with 2096); in 3D, where a few
   more floats a row can, the planes' stride too.  The cells past
   padded[0] in a row belong to no box: nothing reads or writes them. */
size_t GridPaddedCells(const Grid *g, PetscInt padded[3]);
/* The strides of that padded box, axis 0 fastest: 1, g->pitch, g->pitch
   padded[1]. */
void GridPaddedStrides(const Grid *g, ptrdiff_t stride[3]);
/* Where owned cell local[] (owned indices) lies in that padded box. */
ptrdiff_t GridPaddedIndex(const Grid *g, const PetscInt local[3]);
/* This rank's owned box as GridBlock describes it. */
void GridBlockOf(const Grid *g, GridBlock *b);
/* Whether no rank lies across any face of block b. */
static inline PetscBool GridBlockAlone(const GridBlock *b)
{
  for (PetscInt a = 0; a < 3; a++)
    if (b->neighbour[a][0] || b->neighbour[a][1]) return PETSC_FALSE;
  return PETSC_TRUE;
}
/* The owned cells [core[a][0], core[a][1]) of block b along axis a that
   lie outside its absorbing layers (all of them beyond dim). */
void GridBlockCore(const GridBlock *b, PetscInt core[3][2]);
/* Where the CPML memory of the side's layer along axis a lives on block b:
   the padded index range [lo, hi) along a (the whole padded extent of the
   other axes); hi == lo where the block keeps none.  The adjoint updates
   cells up to `radius` past the layer, reading `radius` further, so the
   slab covers those cells and their stencil (ghosts included) and exists
   on every block that owns such a cell; it keeps at least `radius` owned
   cells, so that a halo exchange can carry it as a field of its own.
   Beyond the layer the memory stays zero. */
void GridBlockLayerSlab(const GridBlock *b, PetscInt a, PetscInt side, PetscInt *lo, PetscInt *hi);
