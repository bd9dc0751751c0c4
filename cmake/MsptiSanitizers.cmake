# MSPTI_SANITIZE=address,undefined or thread: instrument every target of the project.
if(MSPTI_SANITIZE)
  add_compile_options(-fsanitize=${MSPTI_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${MSPTI_SANITIZE})
endif()
