# The GPU architectures the agent's CUDA code is built for, chosen before
# enable_language(CUDA) (CMake's `native` is not used: it emits SASS for
# the visible GPUs only, and aborts configure when nvidia-smi works but
# sees no GPU).
#
# bf_cuda_architectures(NVCC OUT_ARCHS OUT_NOTE) sets OUT_ARCHS to a
# CMAKE_CUDA_ARCHITECTURES list and OUT_NOTE to one line saying where it
# came from:
#
#  - with GPUs visible (nvidia-smi --query-gpu=compute_cap, as a remote
#    build on the benchmarked host sees them): each distinct compute
#    capability this nvcc can build, as real code (SASS), plus PTX of the
#    highest, so a GPU newer than the list JIT-compiles it. A GPU this
#    nvcc cannot build for is named in the note (CUDA 13 dropped sm_70
#    and sm_72: "needs CUDA 12.9 or older"); the agent reports it as
#    skipped at run time, its CPU results measured as on any host.
#  - without (nvidia-smi missing, failing, or listing no GPU), or when no
#    visible GPU can be built for: every real architecture from 7.5
#    (Turing) up to 12.1 (GB10) that `nvcc --list-gpu-arch` lists, plus
#    PTX of the highest. CUDA 13.0's nvcc lists 75 80 86 87 88 89 90 100
#    103 110 120 121.
#
# Never fails: configure goes on with whatever can be chosen. nvidia-smi
# is looked up on PATH, so a test can put a fake one first.

# Real architectures, as "75", from nvcc --list-gpu-arch ("compute_75"
# lines); when nvcc is too old to list them (before CUDA 11), the
# published list for its release (CUDA Toolkit release notes).
function(_bf_nvcc_archs nvcc out)
  execute_process(COMMAND ${nvcc} --list-gpu-arch
                  RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_QUIET)
  set(archs "")
  if(rc EQUAL 0)
    string(REGEX MATCHALL "compute_[0-9]+" found "${text}")
    foreach(f IN LISTS found)
      string(REPLACE "compute_" "" a "${f}")
      list(APPEND archs ${a})
    endforeach()
  endif()
  if(NOT archs)
    execute_process(COMMAND ${nvcc} --version
                    OUTPUT_VARIABLE v ERROR_QUIET RESULT_VARIABLE rc)
    string(REGEX MATCH "release ([0-9]+)\\.([0-9]+)" _m "${v}")
    set(ver "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
    if(ver VERSION_GREATER_EQUAL 10.0)
      set(archs 30 35 50 52 60 61 70 72 75)
    endif()
  endif()
  list(REMOVE_DUPLICATES archs)
  list(SORT archs COMPARE NATURAL)
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

function(bf_cuda_architectures nvcc out_archs out_note)
  _bf_nvcc_archs(${nvcc} supported)
  # The GPU-less list: 7.5 .. 12.1 where supported.
  set(fallback "")
  foreach(a IN LISTS supported)
    if(a GREATER_EQUAL 75 AND a LESS_EQUAL 121)
      list(APPEND fallback ${a})
    endif()
  endforeach()
  if(NOT fallback)
    # An nvcc with nothing from 7.5 on (or one that lists nothing):
    # what it lists, newest last, or 7.5 as a last resort.
    set(fallback ${supported})
    if(NOT fallback)
      set(fallback 75)
    endif()
  endif()

  set(visible "")
  set(dotted "")
  set(smi_what "")
  find_program(_bf_smi nvidia-smi NO_CACHE)
  if(_bf_smi)
    execute_process(COMMAND ${_bf_smi} --query-gpu=compute_cap
                            --format=csv,noheader
                    RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err
                    TIMEOUT 30)
    if(rc EQUAL 0)
      string(REPLACE "\n" ";" lines "${text}")
      foreach(l IN LISTS lines)
        string(STRIP "${l}" l)
        if(l MATCHES "^([0-9]+)\\.([0-9])$")
          list(APPEND visible "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
          list(APPEND dotted "${l}")
        endif()
      endforeach()
      if(NOT visible)
        set(smi_what "nvidia-smi lists no GPU")
      endif()
    else()
      string(STRIP "${text}${err}" why)
      string(REGEX REPLACE "\n.*" "" why "${why}")
      set(smi_what "nvidia-smi failed (${rc}: ${why})")
    endif()
  else()
    set(smi_what "no nvidia-smi")
  endif()
  list(REMOVE_DUPLICATES visible)
  list(SORT visible COMPARE NATURAL)

  list(GET supported -1 newest)
  list(GET supported 0 oldest)
  set(real "")
  set(skipped "")
  foreach(cc IN LISTS visible)
    math(EXPR major "${cc} / 10")
    math(EXPR minor "${cc} % 10")
    if(cc IN_LIST supported)
      list(APPEND real ${cc})
    elseif(newest AND cc GREATER newest)
      # Newer than this nvcc: the newest PTX below is JIT-compiled.
      list(APPEND real ${newest})
      list(APPEND skipped "${major}.${minor} (newer than this nvcc: runs ${newest}'s PTX)")
    elseif(cc LESS oldest AND oldest EQUAL 75)
      # CUDA 13 dropped Maxwell, Pascal and Volta (sm_50 .. sm_72).
      list(APPEND skipped "${major}.${minor} (needs CUDA 12.9 or older: this nvcc has no sm_${cc})")
    elseif(cc LESS oldest)
      list(APPEND skipped "${major}.${minor} (older than this nvcc's oldest, sm_${oldest})")
    else()
      list(APPEND skipped "${major}.${minor} (this nvcc has no sm_${cc})")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES real)
  list(SORT real COMPARE NATURAL)
  string(REPLACE ";" ", " skipped_text "${skipped}")
  if(real)
    list(REMOVE_DUPLICATES dotted)
    string(REPLACE ";" " " v "${dotted}")
    set(note "for the GPUs nvidia-smi lists (compute capability ${v})")
  else()
    set(real ${fallback})
    if(visible)
      set(note "no visible GPU can be built for: nvcc's list from 7.5")
    else()
      set(note "${smi_what}: nvcc's list from 7.5")
    endif()
  endif()
  if(skipped_text)
    string(APPEND note "; GPU ${skipped_text}")
  endif()

  set(archs "")
  foreach(a IN LISTS real)
    list(APPEND archs "${a}-real")
  endforeach()
  list(GET real -1 top)
  list(APPEND archs "${top}-virtual")
  set(${out_archs} "${archs}" PARENT_SCOPE)
  set(${out_note} "${note}" PARENT_SCOPE)
endfunction()
