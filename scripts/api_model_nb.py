"""The nonblocking collectives of scripts/api_model.py: the forms of the
OpenSHMEM draft "Nonblocking Collectives" as shmemx_ extensions
(docs/nonblocking-collectives.md), in the area coll_nb.  api_model passes
its Family class and the pieces these families share with the blocking
ones, so that this file depends on nothing."""

_NB = dict(status="extension", prefix="shmemx_", generic=1)
_REQ = ", shmemx_req_h *request"


def nb_families(family, team_put, reduce_ops):
    """broadcast_nb and alltoall_nb (typed and mem), OP_reduce_nb for each
    (operator, type class) of reduce_ops."""
    return [
        family("broadcast", "_nb", "RMA", "int",
               team_put + ", int PE_root" + _REQ,
               'return shmi_nbc_broadcast("$NAME", team, dest, source, $NB, '
               'PE_root, request);', "coll_nb", mem=True, **_NB),
        family("alltoall", "_nb", "RMA", "int", team_put + _REQ,
               'return shmi_nbc_alltoall("$NAME", team, dest, source, $NB, '
               'request);', "coll_nb", mem=True, **_NB),
    ] + [family(f"{op}_reduce", "_nb", cls, "int",
                "shmem_team_t team, $T *dest, const $T *source, "
                "size_t nreduce" + _REQ,
                f'return shmi_nbc_reduce("$NAME", team, dest, source, '
                f'nreduce, $DT, SHMI_OP_{op.upper()}, request);', "coll_nb",
                **_NB)
         for op, cls in reduce_ops]
