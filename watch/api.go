package watch

// APIVersion is the "version" field of the viewer API's JSON answers.
const APIVersion = 1
