#include "data/vtk.h"
#include "data/rsf.h"
#include "data/util.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  const RsfHeader *h;
  const char      *name;
  char             path[PETSC_MAX_PATH_LEN];
  PetscBool        overwrite;
} VtkWrite;

/* The XML up to the raw samples, and the byte count VTK puts before them. */
static void WriteHead(FILE *fp, const RsfHeader *h, const char *name, uint64_t bytes)
{
  const uint16_t probe  = 1;
  const char    *endian = *(const uint8_t *)&probe ? "LittleEndian" : "BigEndian";

  fprintf(fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n", endian);
  /* the first sample's place (x, y, elevation) from the RSF origin: depth runs down -Z */
  fprintf(fp, "  <ImageData WholeExtent=\"0 %d 0 %d 0 %d\" Origin=\"%.17g %.17g %.17g\" Spacing=\"%.17g %.17g %.17g\" Direction=\"0 1 0 0 0 1 -1 0 0\">\n", (int)h->n[0] - 1,
          (int)h->n[1] - 1, (int)h->n[2] - 1, (double)(h->naxes > 1 ? h->o[1] : 0), (double)(h->naxes > 2 ? h->o[2] : 0), h->o[0] ? -(double)h->o[0] : 0.0,
          (double)h->d[0], (double)(h->naxes > 1 ? h->d[1] : 1), (double)(h->naxes > 2 ? h->d[2] : 1));
  fprintf(fp, "    <Piece Extent=\"0 %d 0 %d 0 %d\">\n      <PointData Scalars=\"%s\">\n", (int)h->n[0] - 1, (int)h->n[1] - 1, (int)h->n[2] - 1, name);
  fprintf(fp, "        <DataArray type=\"Float32\" Name=\"%s\" format=\"appended\" offset=\"0\"/>\n", name);
  fprintf(fp, "      </PointData>\n    </Piece>\n  </ImageData>\n  <AppendedData encoding=\"raw\">\n_");
  fwrite(&bytes, sizeof bytes, 1, fp);
}

/* Rank 0: the header, the RSF binary copied in pieces, the closing tags. */
static PetscErrorCode WriteVtk(void *ctx)
{
  VtkWrite      *w     = (VtkWrite *)ctx;
  const uint64_t bytes = 4ull * (uint64_t)w->h->n[0] * (uint64_t)w->h->n[1] * (uint64_t)w->h->n[2];
  char           tmp[PETSC_MAX_PATH_LEN], buf[1 << 16];
  FILE          *in, *out;
  uint64_t       copied = 0;
  int            err    = 0;

  PetscFunctionBeginUser;
  PetscCheck(w->overwrite || access(w->path, F_OK), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s exists; pass -overwrite to replace it", w->path);
  PetscCall(FileTempName(w->path, tmp));
  in = fopen(w->h->data_path, "rb");
  PetscCheck(in, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot read %s for %s: %s", w->h->data_path, w->path, strerror(errno));
  out = fopen(tmp, "wb");
  if (!out) err = errno;
  if (!err) WriteHead(out, w->h, w->name, bytes);
  while (!err && copied < bytes) {
    const size_t want = (size_t)PetscMin((uint64_t)sizeof buf, bytes - copied), got = fread(buf, 1, want, in);
    if (got != want || fwrite(buf, 1, got, out) != got) err = errno ? errno : EIO;
    copied += got;
  }
  if (!err) fprintf(out, "\n  </AppendedData>\n</VTKFile>\n");
  if (!err && (fflush(out) || fsync(fileno(out)))) err = errno;
  if (out && fclose(out) && !err) err = errno;
  fclose(in);
  if (err) remove(tmp);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s: %s", w->path, strerror(err));
  PetscCall(FilePublish(tmp, w->path, w->overwrite));
  PetscFunctionReturn(0);
}

PetscErrorCode VtkFromRsf(MPI_Comm comm, const char *rsf_path, const char *name, PetscBool overwrite)
{
  RsfHeader   h;
  VtkWrite    w = {.h = &h, .name = name, .overwrite = overwrite};
  const char *dot = strrchr(rsf_path, '.');
  size_t      stem = dot ? (size_t)(dot - rsf_path) : strlen(rsf_path);

  PetscFunctionBeginUser;
  PetscCall(RsfReadHeader(comm, rsf_path, &h));
  PetscCheck(stem + 5 <= sizeof w.path, comm, PETSC_ERR_ARG_SIZ, "%s: the name is too long for its .vti beside it", rsf_path);
  memcpy(w.path, rsf_path, stem);
  strcpy(w.path + stem, ".vti");
  PetscCall(RootRun(comm, WriteVtk, &w));
  PetscFunctionReturn(0);
}
